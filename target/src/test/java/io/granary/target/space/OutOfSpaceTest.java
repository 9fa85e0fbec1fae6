package io.granary.target.space;

import static io.granary.target.space.SpaceFixture.LOCAL;
import static io.granary.target.space.SpaceFixture.REMOTE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.granary.clustermap.bucket.BucketProps;
import io.granary.common.error.InsufficientStorageException;
import io.granary.target.CacheConfig;
import io.granary.target.storage.PutOperation;
import io.granary.target.storage.PutOptions;
import io.granary.testkit.MutableClock;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OutOfSpaceTest {
  @TempDir
  Path tmp;
  private SpaceFixture fx;
  private SpaceManager space;
  private final MutableClock clock = new MutableClock(System.currentTimeMillis() + Duration.ofDays(1).toMillis());

  @BeforeEach
  void open() throws IOException {
    fx = new SpaceFixture(tmp.resolve("mp1"));
  }

  @AfterEach
  void close() throws IOException {
    space.close();
    fx.close();
  }

  private void startSpace(CacheConfig cfg) {
    space = new SpaceManager("t1", fx.store, cfg, () -> List.<BucketProps>of(REMOTE, LOCAL), clock, 1000, 1024);
    space.start();
  }

  @Test
  void putBeyondFull_gets507_previousVersionIntact_noWorkFiles() throws IOException {
    startSpace(SpaceFixture.config(10_000, 80, 50, 95, Duration.ZERO));
    byte[] v1 = SpaceFixture.filled(5000, (byte) 1);
    fx.put(LOCAL, "a", v1);

    assertThatThrownBy(() -> fx.put(LOCAL, "b", 5000)).isInstanceOf(InsufficientStorageException.class);
    assertThatThrownBy(() -> fx.put(LOCAL, "a", SpaceFixture.filled(5000, (byte) 2)))
        .isInstanceOf(InsufficientStorageException.class);

    assertThat(fx.read(LOCAL, "a")).isEqualTo(v1);
    assertThat(fx.exists(LOCAL, "b")).isFalse();
    assertThat(fx.workFiles()).isZero();
    assertThat(fx.mp().usage().workBytes()).isZero();
    assertThat(fx.mp().usage().objectBytes()).isEqualTo(5000);
    assertThat(space.stats().refused()).isEqualTo(2);
    fx.put(LOCAL, "small", 4000); // 9000 of 9500: still fits
  }

  @Test
  void putOfUnknownLength_pastCapacity_gets507_andIsDiscardable() throws IOException {
    startSpace(SpaceFixture.config(3L << 20, 80, 50, 95, Duration.ZERO));
    byte[] v1 = SpaceFixture.filled(1000, (byte) 1);
    fx.put(LOCAL, "a", v1);
    PutOperation op = fx.store.beginPut(LOCAL, "a", PutOptions.nativePut(-1, List.of()));
    byte[] chunk = new byte[256 << 10];
    assertThatThrownBy(() -> {
      for (int i = 0; i < 64; i++) {
        op.write(Unpooled.wrappedBuffer(chunk));
      }
    }).isInstanceOf(InsufficientStorageException.class);
    op.discard(); // what the PUT handler does when a write fails

    assertThat(fx.read(LOCAL, "a")).isEqualTo(v1);
    assertThat(fx.workFiles()).isZero();
    assertThat(fx.mp().usage().workBytes()).isZero();
  }

  @Test
  void putBeyondFull_startsEviction_andSucceedsOnceSpaceIsFree() throws Exception {
    startSpace(SpaceFixture.config(10_000, 80, 50, 95, Duration.ZERO));
    for (int i = 0; i < 4; i++) {
      fx.put(REMOTE, "cached" + i, 1000);
    }
    fx.put(LOCAL, "mine", 5000);

    assertThatThrownBy(() -> fx.put(LOCAL, "new", 1000)).isInstanceOf(InsufficientStorageException.class);

    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (space.stats().runs() == 0 && System.nanoTime() < deadline) { // the refusal started a background run
      Thread.sleep(10);
    }
    assertThat(space.stats().runs()).isEqualTo(1);
    assertThat(space.capacity(fx.mp()).usedBytes()).isLessThanOrEqualTo(5000);
    assertThat(fx.exists(LOCAL, "mine")).isTrue();
    fx.put(LOCAL, "new", 1000);
    assertThat(fx.exists(LOCAL, "new")).isTrue();
  }

  @Test
  void refusedPut_belowHigh_stillEvictsDownToLow() throws Exception {
    startSpace(SpaceFixture.config(10_000, 80, 50, 95, Duration.ZERO));
    for (int i = 0; i < 7; i++) {
      fx.put(REMOTE, "cached" + i, 1000);
    }
    // 7000 used, below high (8000); 3000 more would pass full (9500)
    assertThatThrownBy(() -> fx.put(LOCAL, "big", 3000)).isInstanceOf(InsufficientStorageException.class);

    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (space.stats().runs() == 0 && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(space.capacity(fx.mp()).usedBytes()).isEqualTo(5000);
    fx.put(LOCAL, "big", 3000);
  }
}
