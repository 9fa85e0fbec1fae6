package io.granary.target.rebalance;

import io.granary.clustermap.Node;
import io.granary.clustermap.hrw.PlacementKey;
import io.granary.common.exec.Background;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.storage.Mountpath;
import io.granary.target.storage.ObjectLocation;
import io.granary.target.storage.ObjectStore;
import java.io.IOException;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes this target accepted for objects another target owns: a client or proxy that still routed by an older map,
 * or a copy that arrived just as the map changed again. Each such commit is recorded (synced, in the mountpath's
 * {@code handoff} column) before it is queued, and the record goes only once the object has moved, so a crash
 * leaves it to be sent at the next start rather than stranded where no owner looks for it.
 *
 * <p>Threads: {@link #committed} runs on the disk executor right after a commit; one handoff thread sends.
 */
final class Handoffs implements ObjectStore.CommitListener {
  private static final Logger log = LoggerFactory.getLogger(Handoffs.class);
  private static final String COLUMN = "handoff";
  private static final byte[] EMPTY = new byte[0];
  /** Queued keys (about 200 bytes each); beyond, records wait for the next start or rebalance walk. */
  static final int MAX_QUEUED = 100_000;

  private final String self;
  private final ClusterMetadataHolder cluster;
  private final ObjectStore store;
  private final ObjectMover mover;
  private final RebalanceStats stats;
  private final LongConsumer moved; // told the bytes of each object handed on (the current rebalance's count)
  private final BlockingQueue<String> queue = new LinkedBlockingQueue<>(MAX_QUEUED);
  private final AtomicInteger inFlight = new AtomicInteger();
  private final Thread worker;
  private volatile boolean closed;

  Handoffs(String self, ClusterMetadataHolder cluster, ObjectStore store, ObjectMover mover, RebalanceStats stats,
      LongConsumer moved) {
    this.moved = moved;
    this.self = self;
    this.cluster = cluster;
    this.store = store;
    this.mover = mover;
    this.stats = stats;
    this.worker = new Thread(this::work, "handoff-" + self);
    this.worker.setDaemon(true);
    this.worker.setPriority(Background.PRIORITY);
  }

  /** Queues the records a previous run left, and starts sending. */
  void start() throws IOException {
    int found = 0;
    for (Mountpath mp : store.mountpaths()) {
      int[] n = {0};
      mp.meta().column(COLUMN).scan("", null, (key, v) -> {
        n[0]++;
        return queue.offer(key);
      });
      found += n[0];
    }
    if (found > 0) {
      log.info("node={} {} objects written here for other owners are still to be handed on", self, found);
    }
    worker.start();
  }

  /** Objects recorded for handing on and not yet moved (queued or in flight). */
  long pending() {
    return queue.size() + inFlight.get();
  }

  @Override
  public void committed(ObjectLocation loc, ObjectMeta meta) {
    ClusterMetadataHolder.Snapshot s = cluster.snapshot().orElse(null);
    if (s == null) {
      return;
    }
    Node owner = s.placement().owner(PlacementKey.digest(loc.bucket().bucket(), loc.name())).orElse(null);
    if (owner == null || owner.id().equals(self)) {
      return;
    }
    try {
      loc.mountpath().meta().column(COLUMN).put(loc.key(), EMPTY);
    } catch (IOException e) {
      log.error("node={} bucket={} object={} recording a handoff to {} failed", self, loc.bucket().bucket(),
          loc.name(), owner.id(), e);
      return;
    }
    if (!queue.offer(loc.key())) {
      log.warn("node={} handoff queue full; {} waits for the next rebalance walk", self, loc.key());
    }
  }

  private void work() {
    while (!closed) {
      String key;
      try {
        key = queue.take();
      } catch (InterruptedException e) {
        return;
      }
      inFlight.incrementAndGet();
      try {
        ClusterMetadataHolder.Snapshot s = cluster.require();
        ObjectKey k = ObjectKey.resolve(key, s);
        if (k != null) {
          ObjectMover.Result r = mover.move(k.bucket(), k.name(), BandwidthCap.NONE, () -> closed);
          if (r.kind() == ObjectMover.Kind.STOPPED) {
            return; // the record stays for the next start
          }
          if (r.kind() == ObjectMover.Kind.MOVED) {
            moved.accept(r.bytes());
          }
          if (r.kind() == ObjectMover.Kind.FAILED) {
            stats.failed(); // it stays here for the next rebalance walk
            log.error("node={} bucket={} object={} could not be handed on to its owner: {}", self,
                k.bucket().bucket(), k.name(), r.error());
          }
        }
        forget(key, k);
      } catch (InterruptedException e) {
        return;
      } catch (IOException | RuntimeException e) {
        log.error("node={} handing on {} failed", self, key, e);
      } finally {
        inFlight.decrementAndGet();
      }
    }
  }

  /**
   * Drops the record of {@code key} from whichever mountpath holds it: the one the object was committed on, which
   * need not be its HRW mountpath now (mountpaths change at run time).
   */
  private void forget(String key, ObjectKey k) throws IOException {
    for (Mountpath mp : store.mountpaths()) {
      if (mp.meta().column(COLUMN).get(key) != null) {
        mp.meta().column(COLUMN).delete(key);
      }
    }
  }

  void close() {
    closed = true;
    worker.interrupt();
  }
}
