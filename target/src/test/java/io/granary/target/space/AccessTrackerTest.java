package io.granary.target.space;

import static io.granary.target.space.SpaceFixture.REMOTE;
import static org.assertj.core.api.Assertions.assertThat;

import io.granary.target.storage.ObjectStore;
import io.granary.testkit.MutableClock;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AccessTrackerTest {
  @TempDir
  Path tmp;
  private SpaceFixture fx;
  private final MutableClock clock = new MutableClock(1_000_000);
  private final AtomicInteger flushRequests = new AtomicInteger();
  private AccessTracker tracker;

  @BeforeEach
  void open() throws IOException {
    fx = new SpaceFixture(tmp.resolve("mp1"));
    tracker = new AccessTracker(fx.store.mountpaths(), clock, 8, flushRequests::incrementAndGet);
    fx.store.setAccessRecorder(tracker);
  }

  @AfterEach
  void close() throws IOException {
    fx.close();
  }

  private String key(String name) {
    return fx.store.locate(REMOTE, name).key();
  }

  @Test
  void read_recordsInMemory_andWritesRocksDbOnlyOnFlush() throws IOException {
    fx.put(REMOTE, "a", 10);
    fx.read(REMOTE, "a");
    assertThat(tracker.unflushed(fx.mp(), key("a"))).isEqualTo(1_000_000);
    assertThat(fx.mp().meta().atime(key("a"))).isZero();

    assertThat(tracker.flush()).isEqualTo(1);
    assertThat(fx.mp().meta().atime(key("a"))).isEqualTo(1_000_000);
    assertThat(tracker.unflushed(fx.mp(), key("a"))).isZero();
    assertThat(tracker.pendingCount()).isZero();
  }

  @Test
  void manyReads_oneBatch_latestTimeWins() throws IOException {
    fx.put(REMOTE, "a", 10);
    fx.put(REMOTE, "b", 10);
    for (int i = 0; i < 5; i++) {
      clock.set(2_000_000 + i);
      fx.read(REMOTE, "a");
      fx.read(REMOTE, "b");
    }
    assertThat(tracker.pendingCount()).isEqualTo(2);
    assertThat(tracker.flush()).isEqualTo(2);
    assertThat(fx.mp().meta().atime(key("a"))).isEqualTo(2_000_004);
    assertThat(tracker.lastAccess(fx.mp(), key("b"))).isEqualTo(2_000_004);
  }

  @Test
  void missingObject_recordsNothing() throws IOException {
    assertThat(fx.read(REMOTE, "nope")).isNull();
    assertThat(tracker.pendingCount()).isZero();
  }

  @Test
  void delete_dropsFlushedAndUnflushedAtime() throws IOException {
    fx.put(REMOTE, "a", 10);
    fx.read(REMOTE, "a");
    tracker.flush();
    clock.set(3_000_000);
    fx.read(REMOTE, "a");
    fx.store.delete(REMOTE, "a");
    assertThat(tracker.unflushed(fx.mp(), key("a"))).isZero();
    assertThat(fx.mp().meta().atime(key("a"))).isZero();
  }

  @Test
  void pendingMap_isBounded_andAsksForEarlyFlush() throws IOException {
    for (int i = 0; i < 20; i++) {
      fx.put(REMOTE, "o" + i, 1);
      fx.read(REMOTE, "o" + i);
    }
    assertThat(tracker.pendingCount()).isEqualTo(8);
    assertThat(tracker.dropped()).isEqualTo(12);
    assertThat(flushRequests.get()).isPositive();
    tracker.flush();
    assertThat(tracker.pendingCount()).isZero();
  }

  @Test
  void scan_fallsBackToNoAtime_andRemovesOrphans() throws IOException {
    fx.put(REMOTE, "a", 10);
    fx.put(REMOTE, "b", 20);
    fx.read(REMOTE, "b");
    tracker.flush();
    fx.mp().meta().putAtimes(Map.of(key("aa"), 5L)); // a read that raced a delete; sorts between a and b
    long mtimeA = fx.store.stat(REMOTE, "a").mtime();
    List<long[]> seen = new ArrayList<>();
    fx.mp().meta().scanAccess(ObjectStore.bucketPrefix(REMOTE), (k, size, mtime, atime) -> {
      seen.add(new long[] {size, mtime, atime});
      return true;
    });
    assertThat(seen).hasSize(2);
    assertThat(seen).anySatisfy(s -> assertThat(s).containsExactly(10, mtimeA, 0));
    assertThat(seen).anySatisfy(s -> assertThat(s[2]).isEqualTo(1_000_000));
    assertThat(fx.mp().meta().atime(key("aa"))).isZero();
  }
}
