package io.granary.target.space;

import static io.granary.target.space.SpaceFixture.LOCAL;
import static io.granary.target.space.SpaceFixture.REMOTE;
import static org.assertj.core.api.Assertions.assertThat;

import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.target.CacheConfig;
import io.granary.target.meta.CommitIntent;
import io.granary.target.meta.ObjectMeta;
import io.granary.testkit.MutableClock;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LruEvictionTest {
  private static final Duration DONT_EVICT = Duration.ofMinutes(10);
  private static final Collection<BucketProps> BUCKETS = List.of(REMOTE, LOCAL);

  @TempDir
  Path tmp;
  private SpaceFixture fx;
  private SpaceManager space;
  // later than every object's mtime (real time), so reads made on this clock count as newer than any write
  private final long base = System.currentTimeMillis() + Duration.ofDays(1).toMillis();
  private final MutableClock clock = new MutableClock(base);

  @BeforeEach
  void open() throws IOException {
    fx = new SpaceFixture(tmp.resolve("mp1"));
  }

  @AfterEach
  void close() throws IOException {
    if (space != null) {
      space.close();
    }
    fx.close();
  }

  /** Started after a test fills the store: the guard would otherwise start eviction as the fill passes high. */
  private void startSpace(CacheConfig cfg, int heapLimit) {
    space = new SpaceManager("t1", fx.store, cfg, () -> BUCKETS, clock, heapLimit, 1024);
    space.start();
  }

  private void readAt(long millis, BucketProps b, String name) throws IOException {
    clock.set(millis);
    assertThat(fx.read(b, name)).isNotNull();
  }

  @Test
  void evict_aboveHigh_removesOldestUntilLow_sparingRecentReads() throws IOException {
    fx.put(REMOTE, "never-read", 1000); // no atime: its mtime, older than every read, makes it the oldest
    for (int i = 0; i < 8; i++) {
      fx.put(REMOTE, "o" + i, 1000);
    }
    fx.put(REMOTE, "recent", 1000);
    startSpace(SpaceFixture.config(10_000, 80, 50, 100, DONT_EVICT), 1000);
    for (int i = 7; i >= 0; i--) { // read order is the reverse of write order: eviction must follow reads
      readAt(base + Duration.ofMinutes(8 - i).toMillis(), REMOTE, "o" + i);
    }
    space.flushAccessTimes();
    readAt(base + Duration.ofMinutes(55).toMillis(), REMOTE, "o0"); // unflushed, newest read of the o*
    readAt(base + Duration.ofMinutes(59).toMillis(), REMOTE, "recent"); // inside the dont-evict window
    clock.set(base + Duration.ofMinutes(60).toMillis());

    EvictionRun run = space.evictNow(fx.mp());

    // 10000 used, low is 5000: the five least recently read go
    assertThat(run.objects()).isEqualTo(5);
    assertThat(run.bytes()).isEqualTo(5000);
    assertThat(run.reachedLow()).isTrue();
    assertThat(space.capacity(fx.mp()).usedBytes()).isEqualTo(5000);
    assertThat(fx.exists(REMOTE, "never-read")).isFalse();
    for (String gone : List.of("o7", "o6", "o5", "o4")) {
      assertThat(fx.exists(REMOTE, gone)).as(gone).isFalse();
    }
    for (String kept : List.of("o3", "o2", "o1", "o0", "recent")) {
      assertThat(fx.exists(REMOTE, kept)).as(kept).isTrue();
    }
    assertThat(space.stats().runs()).isEqualTo(1);
    assertThat(space.stats().evictedObjects()).isEqualTo(5);
    assertThat(space.stats().evictedBytes()).isEqualTo(5000);
  }

  @Test
  void evict_belowHigh_doesNothing() throws IOException {
    for (int i = 0; i < 8; i++) {
      fx.put(REMOTE, "o" + i, 1000);
    }
    startSpace(SpaceFixture.config(10_000, 80, 50, 100, Duration.ZERO), 1000);
    EvictionRun run = space.evictNow(fx.mp());
    assertThat(run.objects()).isZero();
    assertThat(run.passes()).isZero();
    assertThat(fx.exists(REMOTE, "o0")).isTrue();
  }

  @Test
  void evict_neverTouchesLocalBuckets_evenWhenTheyAloneExceedHigh() throws IOException {
    for (int i = 0; i < 9; i++) {
      fx.put(LOCAL, "l" + i, 1000);
    }
    startSpace(SpaceFixture.config(10_000, 80, 50, 100, Duration.ZERO), 1000);
    clock.set(base + Duration.ofDays(30).toMillis());

    EvictionRun run = space.evictNow(fx.mp());

    assertThat(run.objects()).isZero();
    assertThat(run.reachedLow()).isFalse();
    for (int i = 0; i < 9; i++) {
      assertThat(fx.read(LOCAL, "l" + i)).hasSize(1000);
    }
    assertThat(space.capacity(fx.mp()).usedBytes()).isEqualTo(9000);
  }

  @Test
  void evict_mixed_takesAllCachedCopies_keepsLocal() throws IOException {
    for (int i = 0; i < 6; i++) {
      fx.put(LOCAL, "l" + i, 1000);
    }
    for (int i = 0; i < 3; i++) {
      fx.put(REMOTE, "r" + i, 1000);
    }
    startSpace(SpaceFixture.config(10_000, 80, 50, 100, Duration.ZERO), 1000);
    clock.set(base);

    EvictionRun run = space.evictNow(fx.mp());

    assertThat(run.objects()).isEqualTo(3);
    assertThat(run.reachedLow()).isFalse();
    assertThat(space.capacity(fx.mp()).usedBytes()).isEqualTo(6000);
    for (int i = 0; i < 6; i++) {
      assertThat(fx.exists(LOCAL, "l" + i)).isTrue();
    }
  }

  @Test
  void evict_openReaderKeepsReadingEvictedContent() throws IOException {
    byte[] body = SpaceFixture.filled(9000, (byte) 7);
    fx.put(REMOTE, "big", body);
    startSpace(SpaceFixture.config(10_000, 80, 50, 100, Duration.ZERO), 1000);
    var obj = fx.store.open(REMOTE, "big");
    clock.set(base + Duration.ofHours(1).toMillis());

    assertThat(space.evictNow(fx.mp()).objects()).isEqualTo(1);

    try (var ch = obj.channel()) {
      var buf = java.nio.ByteBuffer.allocate(9000);
      while (buf.hasRemaining() && ch.read(buf) >= 0) {
        // reading the unlinked file through its open descriptor
      }
      assertThat(buf.array()).isEqualTo(body);
    }
    assertThat(fx.exists(REMOTE, "big")).isFalse();
  }

  @Test
  void evict_manyObjects_smallHeap_worksInPasses() throws IOException {
    int n = 20_000;
    long t0 = base - Duration.ofDays(2).toMillis();
    var meta = fx.mp().meta();
    for (int i = 0; i < n; i++) { // metadata only (as a crash-free commit publishes it): eviction never needs the file
      var loc = fx.store.locate(REMOTE, String.format("o%05d", i));
      meta.completeIntent(new CommitIntent(loc.key(), "work/x" + i, loc.relativeFile(),
          new ObjectMeta(100, ChecksumType.XXHASH64, "0", t0 + (long) ((i * 7919L) % n) * 1000)));
    }
    fx.reopen(); // recounts object bytes from metadata
    assertThat(fx.mp().usage().objectBytes()).isEqualTo(100L * n);
    startSpace(SpaceFixture.config(100L * n, 90, 85, 100, Duration.ZERO), 500);

    EvictionRun run = space.evictNow(fx.mp());

    // 15% of 2,000,000 bytes = 3000 objects, 500 per pass at most
    assertThat(run.objects()).isEqualTo(3000);
    assertThat(run.passes()).isGreaterThanOrEqualTo(6);
    assertThat(run.reachedLow()).isTrue();
    // exactly the 3000 oldest (mtime rank < 3000) went
    for (int i = 0; i < n; i += 37) {
      long rank = (i * 7919L) % n;
      assertThat(fx.exists(REMOTE, String.format("o%05d", i))).as("o%05d rank %d", i, rank).isEqualTo(rank >= 3000);
    }
  }
}
