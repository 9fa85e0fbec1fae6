package io.granary.target.mirror;

import io.granary.clustermap.bucket.BucketProps;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.resilver.MirroredObjects;
import io.granary.target.storage.FallbackListener;
import io.granary.target.storage.MirrorCopies;
import io.granary.target.storage.Mountpath;
import io.granary.target.storage.MountpathMove;
import io.granary.target.storage.MountpathSet;
import io.granary.target.storage.ObjectLocation;
import io.granary.target.storage.ObjectStore;
import io.granary.target.storage.StoredName;
import java.io.IOException;
import java.util.Collection;
import java.util.Map;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * N-way mirroring on one target, assembled: every commit of an object of a mirrored bucket (PUT, S3, multipart,
 * cold GET, rebalance, resilver) queues its copies; a read served from a copy queues the restore of the lost one;
 * the resilver hands over objects with copies; a changed {@code mirror.copies}, and the start, walk their buckets.
 * Each of them ends in {@link MirrorRepair#ensure} on a queue worker (or a resilver thread).
 */
public final class Mirroring implements ObjectStore.CommitListener, FallbackListener, MirroredObjects, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Mirroring.class);
  /** Disk workers making copies: copies are disk bandwidth, two keep a disk busy without starving PUTs. */
  public static final int DEFAULT_WORKERS = 2;
  /** Objects waiting at most (a name and a bucket each: about 100 bytes); beyond, their buckets are walked. */
  public static final int DEFAULT_CAPACITY = 8192;

  private final String nodeId;
  private final MirrorStats stats = new MirrorStats();
  private final MirrorRepair repair;
  private final MirrorQueue queue;
  private final MirrorWalks walks;
  private final Function<BucketProps, BucketProps> current;

  /**
   * @param current given a bucket's props, its props now (null: that bucket incarnation is gone)
   */
  public Mirroring(String nodeId, ObjectStore store, Function<BucketProps, BucketProps> current, int workers,
      int capacity) {
    this.nodeId = nodeId;
    this.current = current;
    MirrorCopies copies = new MirrorCopies(store);
    this.repair = new MirrorRepair(nodeId, copies, current, stats);
    // The queue hands overflow to the walks, which queue into it: the cycle is closed once both exist, and nothing
    // offers before the listeners below are installed.
    MirrorWalks[] w = new MirrorWalks[1];
    this.queue = new MirrorQueue(nodeId, "mirror-" + nodeId, workers, capacity, this::ensureQuietly, n -> {
      stats.overflows.incrementAndGet();
      w[0].request(n.bucket());
    });
    this.walks = new MirrorWalks(nodeId, copies, queue, current);
    w[0] = walks;
    store.addCommitListener(this);
    store.setFallbackListener(this);
  }

  public MirrorStats stats() {
    return stats;
  }

  /** Objects waiting for copies now. */
  public int queueDepth() {
    return queue.depth();
  }

  /** The latest make-n-copies walk of each bucket walked since start. */
  public Map<String, MirrorWalks.Progress> walks() {
    return walks.progress();
  }

  /** Walks {@code bucket}: its objects get the copies it asks for now (make-n-copies). */
  public void makeNCopies(BucketProps bucket) {
    walks.request(bucket);
  }

  /**
   * The bucket metadata changed: buckets whose {@code mirror.copies} changed are walked; at the first metadata a
   * target sees (its start), every mirrored bucket is, for copies a stop or crash left unmade.
   */
  public void bucketsChanged(Map<String, BucketProps> old, Collection<BucketProps> now) {
    for (BucketProps b : now) {
      BucketProps before = old == null ? null : old.get(b.bucket().key());
      int was = before == null || !before.id().equals(b.id()) ? 1 : before.protection().mirrorCopies();
      if (b.protection().mirrorCopies() != was) {
        log.info("node={} bucket={} mirror.copies {} -> {}: make-n-copies walk", nodeId, b.bucket(), was,
            b.protection().mirrorCopies());
        walks.request(b);
      } else if (old == null && was > 1) {
        walks.request(b);
      }
    }
  }

  /**
   * Brings one object to its copies now, on the calling thread (a disk thread): what validation runs after it moved
   * a bad copy aside, so the copy is restored before the read is tried again.
   */
  public MirrorRepair.Result repairNow(BucketProps bucket, String name) throws IOException {
    return repair.ensure(bucket, name);
  }

  @Override
  public void committed(ObjectLocation loc, ObjectMeta meta) {
    BucketProps now = current.apply(loc.bucket()); // the setting now: the writer may have started under an older one
    if (now != null && (now.protection().mirrorCopies() > 1 || !meta.copies().isEmpty())) {
      queue.offer(new StoredName(loc.bucket(), loc.name()));
    }
  }

  @Override
  public void servedFromCopy(ObjectLocation loc) {
    stats.fallbackReads.incrementAndGet();
    queue.offer(new StoredName(loc.bucket(), loc.name()));
  }

  @Override
  public Decision decide(StoredName n, Mountpath on, ObjectMeta meta, MountpathSet set) throws IOException {
    BucketProps b = current.apply(n.bucket());
    if (b == null) {
      return Decision.NOT_MIRRORED;
    }
    int copies = b.protection().mirrorCopies();
    if (copies <= 1 && meta.copies().isEmpty()) {
      return Decision.NOT_MIRRORED;
    }
    if (set.available().isEmpty()) {
      return Decision.NOT_MIRRORED; // nowhere to place anything: the resilver's own rules apply
    }
    ObjectLocation loc = repair.locate(b, n.name());
    return MirrorRepair.needsRepair(loc, on, meta, set, copies) ? Decision.REPAIR : Decision.IN_PLACE;
  }

  @Override
  public MountpathMove.Result repair(StoredName n) throws IOException {
    MirrorRepair.Result r = repair.ensure(n.bucket(), n.name());
    return switch (r.outcome()) {
      case REPAIRED -> new MountpathMove.Result(MountpathMove.Outcome.MOVED, r.bytes());
      case IN_PLACE -> new MountpathMove.Result(MountpathMove.Outcome.IN_PLACE, 0);
      case CHANGED, GONE -> new MountpathMove.Result(MountpathMove.Outcome.GONE, 0);
      case FAILED -> throw new IOException("mirror copies of " + n.bucket().bucket() + "/" + n.name()
          + " could not all be made (see the log)");
    };
  }

  private void ensureQuietly(StoredName n) {
    try {
      repair.ensure(n.bucket(), n.name());
    } catch (IOException | RuntimeException e) {
      stats.failures.incrementAndGet();
      log.warn("node={} bucket={} object={}: mirroring failed: {}", nodeId, n.bucket().bucket(), n.name(),
          e.toString());
    }
  }

  @Override
  public void close() {
    walks.close();
    queue.close();
  }
}
