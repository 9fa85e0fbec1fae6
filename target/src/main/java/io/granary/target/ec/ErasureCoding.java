package io.granary.target.ec;

import io.granary.clustermap.Node;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.hrw.PlacementKey;
import io.granary.common.control.ControlClient;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.mirror.MirrorQueue;
import io.granary.target.rebalance.PeerFiles;
import io.granary.target.storage.Mountpath;
import io.granary.target.storage.ObjectLocation;
import io.granary.target.storage.ObjectStore;
import io.granary.target.storage.StoredName;
import java.io.IOException;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Erasure coding across targets, assembled (docs/protection.md): every commit of an object of a bucket with
 * {@code ec.data} &gt; 0 (PUT, S3, multipart, cold GET, rebalance, a rebuild) is queued for its owner to encode;
 * walks ({@link EcWalks}) queue what a crash, a full queue or a failed encode left unencoded (the absence of the
 * owner's "encoded" mark for the current version is the marker) and sweep orphaned slices; reads that find no usable
 * main copy rebuild it ({@link EcObjectHandlers}); deletes remove the slices.
 *
 * <p>Threads: {@link #DEFAULT_WORKERS} encode threads {@code ec-NODE-i}, one walk thread {@code ec-walk-NODE}, and
 * {@link #REBUILD_THREADS} threads {@code ec-rebuild-NODE}; commits only offer to the queue, which never blocks.
 */
public final class ErasureCoding implements ObjectStore.CommitListener, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ErasureCoding.class);
  /** Encode workers: each holds (D+P) cells and keeps a network link busy; two keep up with a disk. */
  public static final int DEFAULT_WORKERS = 2;
  /** Objects waiting at most (a name and a bucket each); beyond, their buckets are walked. */
  public static final int DEFAULT_CAPACITY = 8192;
  /** Bytes per cell: memory per encode is (D+P) × this (4+2: 1.5 MiB), per rebuild (D + rebuilt) × this. */
  public static final int DEFAULT_CELL_SIZE = 256 << 10;
  /** Rebuilds at once (reads wait for them); more wait in line, up to {@code 64}, then 503 Busy. */
  static final int REBUILD_THREADS = 4;
  /** How long a validation repair waits for its rebuild: longer than any rebuild that is progressing. */
  private static final long REBUILD_WAIT_MINUTES = 10;

  private final String nodeId;
  private final ClusterMetadataHolder cluster;
  private final Function<BucketProps, BucketProps> current;
  private final EcStats stats = new EcStats();
  private final SliceStore slices;
  private final EcPeers peers;
  private final Encoder encoder;
  private final Rebuilder rebuilder;
  private final EcWalks walks;
  private final MirrorQueue queue;
  private final BoundedExecutor rebuilds;
  private final Map<String, Restore> inFlight = new ConcurrentHashMap<>();

  public ErasureCoding(String nodeId, ObjectStore store, ClusterMetadataHolder cluster,
      Function<BucketProps, BucketProps> current, PeerFiles files, ControlClient control, int cellSize) {
    this.nodeId = nodeId;
    this.cluster = cluster;
    this.current = current;
    this.slices = new SliceStore(nodeId, store);
    this.peers = new EcPeers(files, control);
    MissingSlices missing = new MissingSlices();
    this.encoder = new Encoder(nodeId, store, cluster, current, slices, peers, stats, missing, cellSize);
    this.rebuilder = new Rebuilder(nodeId, store, cluster, slices, peers, stats);
    this.queue = new MirrorQueue(nodeId, "ec-" + nodeId, DEFAULT_WORKERS, DEFAULT_CAPACITY, this::encodeQuietly,
        n -> {
          stats.overflows.incrementAndGet();
          walks().request(n.bucket());
        });
    this.rebuilds = new BoundedExecutor("ec-rebuild-" + nodeId, REBUILD_THREADS, 64);
    // unencoded: the current version not encoded, or encoded for holders other than those the map names now
    this.walks = new EcWalks(nodeId, store, cluster, current, queue, (b, name, meta) -> ownsHere(b, name)
        && !encoder.placed(b, name, meta), new OrphanSweep(nodeId, store, cluster, slices, peers),
        stats.placementWalks::incrementAndGet, new SliceAudit(nodeId, cluster, slices, peers, stats,
            missing, this::ownsHere), new SliceScrub(nodeId, cluster, slices, peers, stats), stats.audits::incrementAndGet);
    store.addCommitListener(this);
  }

  public EcStats stats() {
    return stats;
  }

  public SliceStore slices() {
    return slices;
  }

  /** Objects waiting to be encoded, or being encoded now. */
  public int queueDepth() {
    return queue.depth();
  }

  /** What {@code GET /v1/ec} answers. */
  public record Report(String target, int queueDepth, long slicesHeld, long encoded, long replicated,
      long encodeFailures, long rebuilds, long rebuildFailures, long reencoded, long placementWalks, long audits,
      long slicesAudited, long slicesMissing, long slicesCorrupt, long resent) {
  }

  public Report report() {
    return new Report(nodeId, queue.depth(), slices.held(), stats.encoded(), stats.replicated(),
        stats.encodeFailures(), stats.rebuilds(), stats.rebuildFailures(), stats.reencoded(),
        stats.placementWalks(), stats.audits(), stats.slicesAudited(), stats.slicesMissing(), stats.slicesCorrupt(),
        stats.resent());
  }

  @Override
  public void committed(ObjectLocation loc, ObjectMeta meta) {
    BucketProps now = current.apply(loc.bucket());
    if (now != null && now.protection().ecData() > 0 && ownsHere(now, loc.name())) {
      queue.offer(new StoredName(loc.bucket(), loc.name()));
    }
  }

  private boolean ownsHere(BucketProps b, String name) {
    return cluster.snapshot().flatMap(s -> s.placement().owner(PlacementKey.digest(b.bucket(), name)))
        .map(n -> n.id().equals(nodeId)).orElse(false);
  }

  /**
   * The bucket metadata changed: at the first one a target sees (its start) every erasure-coded bucket is walked
   * for what a stop or crash left unencoded; buckets gone lose the slices held for them.
   */
  public void bucketsChanged(Map<String, BucketProps> old, Collection<BucketProps> now) {
    if (old == null) {
      slices.count();
      // and a holder may have lost a disk while this target was down, its audits asked for then unheard
      walks.requestAudit(now, EcWalks.ALL_HOLDERS);
      walks.requestSweep();
      return;
    }
    for (BucketProps b : old.values()) {
      boolean kept = now.stream().anyMatch(n -> n.bucket().equals(b.bucket()) && n.id().equals(b.id()));
      if (!kept) {
        try {
          slices.destroyBucket(b);
        } catch (IOException e) {
          log.warn("node={} bucket={} removing its slices failed: {}", nodeId, b.bucket(), e.toString());
        }
      }
    }
  }

  /**
   * The cluster map changed: when more targets are active than before (one came back, one joined), what was left
   * unencoded for want of a holder is encoded now. Once a placement change has settled (a target joined, left or
   * was decommissioned, and the rebalance that followed finished everywhere: every object is on its owner), every
   * erasure-coded bucket is walked and each object whose holders changed is encoded again for the new ones, which
   * then tells the former holders to drop theirs ({@link Encoder}); an object that came here by rebalance was queued
   * by its commit already.
   */
  public void mapChanged(io.granary.clustermap.ClusterMap old, io.granary.clustermap.ClusterMap now) {
    if (old == null) {
      return;
    }
    if (now.settled() && (!old.settled() || !old.placementSignature().equals(now.placementSignature()))) {
      log.info("node={} placement settled at map version {}: erasure-coded buckets walked for moved holders", nodeId,
          now.version());
      walks.requestPlacement();
      walks.requestSweep();
    } else if (active(now) > active(old)) {
      // what waited for a holder is encoded; one back without its disk (or some of it) is sent its slices again
      walks.requestAudit(backNow(old, now));
      walks.requestSweep(); // deletes made while a holder was away left its slices
    }
  }

  /**
   * A scrub of a bucket: when it is erasure coded, the slices held here for it are re-hashed (rotten ones removed,
   * their owners asked to audit) and the slices of the objects owned here audited. Never blocks.
   */
  public void scrub(BucketProps b) {
    if (b.protection().ecData() > 0) {
      walks.requestScrub(b);
    }
  }

  /**
   * {@code POST /v1/ec/audit?holder=ID}: a holder lost slices; the objects this target owns are audited on that
   * holder (without one: on every holder). Never blocks.
   */
  public void auditAsked(String holder) {
    walks.requestAudit(holder == null || holder.isEmpty() ? EcWalks.ALL_HOLDERS : java.util.Set.of(holder));
  }

  /** The targets active in {@code now} that were not in {@code old}. */
  private static java.util.Set<String> backNow(io.granary.clustermap.ClusterMap old,
      io.granary.clustermap.ClusterMap now) {
    java.util.Set<String> back = new java.util.HashSet<>();
    now.targets().forEach((id, n) -> {
      Node before = old.targets().get(id);
      if (n.state() == io.granary.clustermap.NodeState.ACTIVE
          && (before == null || before.state() != io.granary.clustermap.NodeState.ACTIVE)) {
        back.add(id);
      }
    });
    return back;
  }

  /**
   * A mountpath of this target left service (failed, disabled or detached) with the slices it held: every active
   * target, this one too, audits the objects it owns, and sends again what is missing. Asynchronous.
   */
  public void slicesLost(String why) {
    log.info("node={} slices held here may be lost ({}): every target audits the objects it owns", nodeId, why);
    rebuilds.submit(() -> {
      askAudits(); // after the count: slices sent again are counted as they arrive
      return null;
    }).exceptionally(e -> {
      log.warn("node={} slice audits not asked for now ({}): targets audit at their next start", nodeId,
          e.toString());
      return null;
    });
  }

  /**
   * A mountpath of this target is back in service: the slices and marks replaced on other mountpaths while it was
   * away are removed from it ({@link SliceStore#dropReplaced}). Asynchronous.
   */
  public void slicesBack(Mountpath mp) {
    rebuilds.submit(() -> slices.dropReplaced(mp)).exceptionally(e -> {
      log.warn("node={} mountpath={}: slices replaced while it was away not looked for: {}", nodeId, mp,
          e.toString());
      return null;
    });
  }

  private void askAudits() {
    slices.count(); // what the lost mountpath held is no longer held
    walks.requestAudit(EcWalks.ALL_HOLDERS); // this target's own marks may have been on that mountpath too
    ClusterMetadataHolder.Snapshot s = cluster.snapshot().orElse(null);
    if (s == null) {
      return;
    }
    for (Node n : s.map().targets().values()) {
      if (!n.id().equals(nodeId) && n.state() == io.granary.clustermap.NodeState.ACTIVE) {
        peers.askAudit(n, nodeId).exceptionally(e -> {
          log.warn("node={} could not ask target {} for a slice audit (it audits at its next start or when this "
              + "target is back): {}", nodeId, n.id(), ControlClient.cause(e).toString());
          return null;
        });
      }
    }
  }

  /** The walks, once made: the queue's overflow may be told of an object before (nothing offers before). */
  private EcWalks walks() {
    return walks;
  }

  private static long active(io.granary.clustermap.ClusterMap m) {
    return m.targets().values().stream().filter(n -> n.state() == io.granary.clustermap.NodeState.ACTIVE).count();
  }

  private void encodeQuietly(StoredName n) {
    try {
      if (encoder.encode(n.bucket(), n.name()) == Encoder.Outcome.HOLDER_OFFLINE) {
        stats.encodeFailures.incrementAndGet();
      }
    } catch (IOException | RuntimeException e) {
      stats.encodeFailures.incrementAndGet();
      walks.encodeFailed();
      log.warn("node={} bucket={} object={}: erasure coding failed, left unencoded for a later walk: {}", nodeId,
          n.bucket().bucket(), n.name(), e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  // ---- rebuilds: one at a time per object, on the rebuild threads

  /** A restore of a lost main copy in flight: its result, and its work file for GETs that stream it meanwhile. */
  record Restore(CompletableFuture<Rebuilder.Result> result, RestoringCopy copy) {
  }

  /** On the owner: rebuilds the object's main copy (committed), or says why not. */
  CompletableFuture<Rebuilder.Result> restore(BucketProps b, String name) {
    return restoring(b, name).result();
  }

  /** {@link #restore}, joined by every caller while it runs: one rebuild per object. */
  Restore restoring(BucketProps b, String name) {
    return joined("restore/" + b.bucket().key() + "/" + b.id() + "/" + name,
        copy -> rebuilder.restore(b, name, copy));
  }

  /**
   * Elsewhere, its owner offline: a rebuild that GETs stream as it is decoded, joined by every reader while it runs
   * (one per object); nothing is kept once it ends.
   */
  Restore degrading(BucketProps b, String name) {
    return joined("degraded/" + b.bucket().key() + "/" + b.id() + "/" + name,
        copy -> rebuilder.degraded(b, name, copy));
  }

  /** A rebuild that streams into a {@link RestoringCopy}. */
  @FunctionalInterface
  private interface StreamedRebuild {
    Rebuilder.Result run(RestoringCopy copy) throws Exception;
  }

  /** The rebuild in flight under {@code key}, or a new one started on the rebuild threads. */
  private Restore joined(String key, StreamedRebuild rebuild) {
    Restore mine = new Restore(new CompletableFuture<>(), new RestoringCopy());
    Restore running = inFlight.putIfAbsent(key, mine);
    if (running != null) {
      return running;
    }
    rebuilds.submit(() -> rebuild.run(mine.copy())).whenComplete((r, err) -> {
      inFlight.remove(key, mine);
      if (err != null) {
        mine.copy().fail(err); // never ran (503 Busy): readers waiting to stream learn it
        mine.result().completeExceptionally(err);
      } else {
        mine.result().complete(r);
      }
    });
    return mine;
  }

  /** Elsewhere, its owner offline: the object rebuilt for one read (the caller closes it). */
  CompletableFuture<Rebuilder.Result> degraded(BucketProps b, String name) {
    return rebuilds.submit(() -> rebuilder.degraded(b, name));
  }

  /**
   * Rebuilds the main copy of an object this target owns from its slices and commits it, waiting for the rebuild
   * (one per object: a read rebuilding it meanwhile is the same one). What validation falls back to when no intact
   * copy is left here ({@code MainCopyRebuild}). Blocking: disk and scrub threads only, never an event loop.
   *
   * @return whether the main copy was rebuilt; false for a bucket without EC, an object owned elsewhere, or too few
   *     slices reachable (the reason is logged)
   */
  public boolean rebuildMain(BucketProps b, String name) throws IOException {
    if (b.protection().ecData() == 0 || !ownsHere(b, name)) {
      return false;
    }
    try {
      Rebuilder.Result r = restore(b, name).get(REBUILD_WAIT_MINUTES, java.util.concurrent.TimeUnit.MINUTES);
      if (r.kind() != Rebuilder.Kind.REBUILT) {
        rebuildFailed();
        log.warn("node={} bucket={} object={}: not rebuilt from slices: {}", nodeId, b.bucket(), name,
            r.kind() == Rebuilder.Kind.NONE ? "no slice of it is held anywhere" : r.message());
      }
      return r.kind() == Rebuilder.Kind.REBUILT;
    } catch (java.util.concurrent.ExecutionException e) {
      rebuildFailed();
      throw new IOException("rebuilding " + b.bucket() + "/" + name + " from its slices failed: "
          + ControlClient.cause(e), ControlClient.cause(e));
    } catch (java.util.concurrent.TimeoutException e) {
      rebuildFailed();
      return false; // still running: it commits when done, the caller counts this one unrepaired
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** A GET streamed an object from its rebuild as it was written. */
  void rebuildStreamed() {
    stats.rebuildsStreamed.incrementAndGet();
  }

  void rebuildFailed() {
    stats.rebuildFailures.incrementAndGet();
  }

  /**
   * The object is being deleted: its owner's marks and every holder's slices go (best effort: a holder that cannot
   * be reached keeps an orphan, see docs/protection.md).
   */
  void deleting(BucketProps b, String name) {
    long now = System.currentTimeMillis(); // what is newer was written after this delete, by this owner's clock
    Runnable work = () -> {
      try {
        slices.clearMarks(b, name, now);
        slices.markDeleted(b, name, now); // for holders this delete cannot reach now (OrphanSweep)
        slices.remove(b, name, r -> r.mtime() <= now);
      } catch (IOException e) {
        log.warn("node={} bucket={} object={}: removing local slices failed: {}", nodeId, b.bucket(), name,
            e.toString());
      }
      ClusterMetadataHolder.Snapshot s = cluster.snapshot().orElse(null);
      if (s == null) {
        return;
      }
      int n = b.protection().ecData() + b.protection().ecParity() + 3;
      for (Node h : s.placement().ranked(PlacementKey.digest(b.bucket(), name), n)) {
        if (!h.id().equals(nodeId)) {
          peers.removeUpTo(h, b, name, now).exceptionally(e -> {
            log.info("node={} bucket={} object={}: slices on {} not removed (orphaned): {}", nodeId, b.bucket(),
                name, h.id(), ControlClient.cause(e).toString());
            return null;
          });
        }
      }
    };
    rebuilds.submit(() -> {
      work.run();
      return null;
    }).exceptionally(e -> { // busy: never on the caller's thread (an event loop)
      log.warn("node={} bucket={} object={}: slices not removed now ({}), left to the sweep", nodeId, b.bucket(),
          name, e.toString());
      return null;
    });
  }

  @Override
  public void close() {
    walks.close();
    queue.close();
    rebuilds.close();
  }
}
