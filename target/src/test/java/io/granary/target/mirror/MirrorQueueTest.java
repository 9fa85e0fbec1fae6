package io.granary.target.mirror;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.target.storage.StoredName;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link MirrorQueue} with a worker the test holds: capacity, dedup, overflow and a waiting put, deterministic. */
class MirrorQueueTest {
  private static final BucketProps B = new BucketProps(Bucket.local("queue"), "id1", ChecksumType.XXHASH64,
      Instant.EPOCH);

  private final BlockingQueue<String> started = new LinkedBlockingQueue<>();
  private final CountDownLatch release = new CountDownLatch(1);
  private final List<String> overflowed = new CopyOnWriteArrayList<>();
  private final MirrorStats stats = new MirrorStats();
  private MirrorQueue queue;

  private void open(int capacity) {
    queue = new MirrorQueue("t1", "mirror-t1", 1, capacity, n -> {
      started.add(n.name());
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, n -> {
      stats.overflows.incrementAndGet();
      overflowed.add(n.name());
    });
  }

  @AfterEach
  void close() {
    release.countDown();
    queue.close();
  }

  private static StoredName n(String name) {
    return new StoredName(B, name);
  }

  @Test
  void offer_beyondCapacity_neverBlocks_andHandsTheObjectToOverflow() throws InterruptedException {
    open(2);
    assertThat(queue.offer(n("busy"))).isTrue();
    assertThat(started.poll(10, TimeUnit.SECONDS)).isEqualTo("busy"); // the one worker holds it

    assertThat(queue.offer(n("a"))).isTrue();
    assertThat(queue.offer(n("b"))).isTrue();
    assertThat(queue.offer(n("c"))).isFalse();

    assertThat(queue.depth()).as("two waiting, one being copied").isEqualTo(3);
    assertThat(overflowed).containsExactly("c");
    assertThat(stats.overflows()).isEqualTo(1);
  }

  @Test
  void offer_ofAWaitingObject_queuesItOnce() throws InterruptedException {
    open(4);
    queue.offer(n("busy"));
    assertThat(started.poll(10, TimeUnit.SECONDS)).isEqualTo("busy");

    queue.offer(n("a"));
    queue.offer(n("a"));
    queue.offer(n("a"));

    assertThat(queue.depth()).as("one waiting, one being copied").isEqualTo(2);
    assertThat(overflowed).isEmpty();
  }

  @Test
  void put_waitsForRoom_thenQueues() throws InterruptedException {
    open(1);
    queue.offer(n("busy"));
    assertThat(started.poll(10, TimeUnit.SECONDS)).isEqualTo("busy");
    queue.offer(n("a"));
    CountDownLatch queued = new CountDownLatch(1);
    Thread walker = new Thread(() -> {
      try {
        queue.put(n("b"));
        queued.countDown();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    walker.start();

    assertThat(queued.getCount()).isEqualTo(1);
    release.countDown(); // the worker finishes "busy", takes "a": room for "b"

    assertThat(queued.await(10, TimeUnit.SECONDS)).isTrue();
    walker.join();
    assertThat(overflowed).isEmpty();
  }
}
