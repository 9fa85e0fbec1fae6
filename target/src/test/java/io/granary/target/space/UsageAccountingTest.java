package io.granary.target.space;

import static io.granary.target.space.SpaceFixture.LOCAL;
import static io.granary.target.space.SpaceFixture.REMOTE;
import static org.assertj.core.api.Assertions.assertThat;

import io.granary.target.storage.MountpathUsage;
import io.granary.target.storage.PutOperation;
import io.granary.target.storage.PutOptions;
import io.granary.target.storage.SpaceReservation;
import io.granary.testkit.MutableClock;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class UsageAccountingTest {
  @TempDir
  Path tmp;
  private SpaceFixture fx;

  @BeforeEach
  void open() throws IOException {
    fx = new SpaceFixture(tmp.resolve("mp1"), tmp.resolve("mp2"));
  }

  @AfterEach
  void close() throws IOException {
    fx.close();
  }

  private long objectBytes() {
    return fx.store.mountpaths().stream().mapToLong(mp -> mp.usage().objectBytes()).sum();
  }

  private long workBytes() {
    return fx.store.mountpaths().stream().mapToLong(mp -> mp.usage().workBytes()).sum();
  }

  @Test
  void put_addsObjectBytes_andReleasesWork() throws IOException {
    fx.put(REMOTE, "a", 100);
    fx.put(LOCAL, "b", 250);
    assertThat(objectBytes()).isEqualTo(350);
    assertThat(workBytes()).isZero();
  }

  @Test
  void overwrite_countsOnlyTheDifference() throws IOException {
    fx.put(REMOTE, "a", 1000);
    fx.put(REMOTE, "a", 40);
    assertThat(objectBytes()).isEqualTo(40);
  }

  @Test
  void delete_subtractsTheObject() throws IOException {
    fx.put(REMOTE, "a", 100);
    fx.put(REMOTE, "b", 300);
    assertThat(fx.store.delete(REMOTE, "a")).isTrue();
    assertThat(fx.store.delete(REMOTE, "a")).isFalse();
    assertThat(objectBytes()).isEqualTo(300);
  }

  @Test
  void destroyBucket_subtractsOnlyThatBucket() throws IOException {
    for (int i = 0; i < 10; i++) {
      fx.put(REMOTE, "r" + i, 100);
      fx.put(LOCAL, "l" + i, 10);
    }
    fx.store.destroyBucket(REMOTE);
    assertThat(objectBytes()).isEqualTo(100);
  }

  @Test
  void reopen_recountsFromMetadata() throws IOException {
    fx.put(REMOTE, "a", 123);
    fx.put(LOCAL, "b", 77);
    fx.store.delete(LOCAL, "b");
    fx.reopen();
    assertThat(objectBytes()).isEqualTo(123);
    assertThat(workBytes()).isZero();
  }

  @Test
  void putInProgress_reservesDeclaredLength_untilDiscarded() throws IOException {
    PutOperation op = fx.store.beginPut(REMOTE, "a", PutOptions.nativePut(5000, List.of()));
    op.write(Unpooled.wrappedBuffer(new byte[100]));
    assertThat(workBytes()).isEqualTo(5000);
    op.discard();
    op.discard();
    assertThat(workBytes()).isZero();
    assertThat(objectBytes()).isZero();
  }

  @Test
  void putOfUnknownLength_reservesAsItGrows() throws IOException {
    PutOperation op = fx.store.beginPut(REMOTE, "a", PutOptions.nativePut(-1, List.of()));
    assertThat(workBytes()).isZero();
    op.write(Unpooled.wrappedBuffer(new byte[10]));
    assertThat(workBytes()).isEqualTo(1 << 20); // reserved in 1 MiB steps
    op.finish();
    assertThat(workBytes()).isZero();
    assertThat(objectBytes()).isEqualTo(10);
  }

  @Test
  void reservation_countsUntilClosed() throws IOException {
    var loc = fx.store.locate(REMOTE, "cold");
    try (SpaceReservation r = fx.store.reserve(loc, 4096)) {
      assertThat(loc.mountpath().usage().workBytes()).isEqualTo(4096);
      r.close();
    }
    assertThat(loc.mountpath().usage().workBytes()).isZero();
  }

  @Test
  void limitedCapacity_countsObjectsWorkAndMultipartParts() throws IOException {
    var mp = fx.mp();
    CapacityMeter meter = new CapacityMeter(1 << 20, fx.store.mountpaths());
    Path part = mp.uploadsDir().resolve("u1").resolve("1.0");
    Files.createDirectories(part.getParent());
    Files.write(part, new byte[700]);
    meter.refresh(mp);
    MountpathUsage u = mp.usage();
    Capacity c = meter.measure(mp);
    assertThat(c.limited()).isTrue();
    assertThat(c.capacityBytes()).isEqualTo(1 << 20);
    assertThat(c.usedBytes()).isEqualTo(u.objectBytes() + u.workBytes() + 700);
  }

  @Test
  void unlimitedCapacity_isTheFileSystem() throws IOException {
    CapacityMeter meter = new CapacityMeter(0, fx.store.mountpaths());
    Capacity c = meter.measure(fx.mp());
    assertThat(c.limited()).isFalse();
    assertThat(c.capacityBytes()).isEqualTo(Files.getFileStore(tmp).getTotalSpace());
    assertThat(c.usedBytes()).isPositive().isLessThanOrEqualTo(c.capacityBytes());
  }

  @Test
  void spaceManager_reportsCapacityFromCounters() throws IOException {
    fx.put(REMOTE, "a", 100);
    try (SpaceManager sm = new SpaceManager("t1", fx.store,
        SpaceFixture.config(1_000_000, 90, 80, 95, Duration.ZERO), List::of, new MutableClock(0))) {
      sm.start();
      long used = 0;
      for (var mp : fx.store.mountpaths()) {
        used += sm.capacity(mp).usedBytes();
      }
      assertThat(used).isEqualTo(100);
    }
  }
}
