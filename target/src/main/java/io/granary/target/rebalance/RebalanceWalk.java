package io.granary.target.rebalance;

import io.granary.clustermap.Node;
import io.granary.clustermap.hrw.PlacementKey;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.rebalance.RebalanceProgress;
import io.granary.target.meta.WalkMarkers;
import io.granary.target.storage.Mountpath;
import io.granary.target.storage.ObjectStore;
import io.granary.target.storage.Relocation;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One rebalance on one target: walks the metadata of each mountpath (never its directories) in key order, and
 * moves every object another target owns under the current map, {@code streams} at a time, within the bandwidth
 * cap. First a counting pass finds what there is to move (for progress and ETA); then the moving pass goes batch by
 * batch (a few batches in flight), recording after each batch the last key it dealt with, so a restart resumes there
 * ({@link WalkMarkers}).
 * Objects already moved are gone from here, so neither a resumed walk nor one a newer map restarts sends anything
 * twice.
 *
 * <p>Threads: {@link #run} on the rebalancer's walker thread; moves on the stream pool.
 */
final class RebalanceWalk implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(RebalanceWalk.class);
  /** Keys examined per batch; the misplaced among them move in parallel, then the marker advances. */
  static final int BATCH = 256;
  /** Where each mountpath's walk is (column {@code rebalance}). */
  static final WalkMarkers MARKERS = new WalkMarkers("rebalance");
  /** Batches whose moves may be in flight at once. */
  static final int WINDOW = 4;

  private final String self;
  private final long id;
  private final ClusterMetadataHolder cluster;
  private final ObjectStore store;
  private final ObjectMover mover;
  private final Relocation relocation;
  private final ExecutorService streams;
  private final BandwidthCap cap;
  private final RebalanceCounters counters;
  private volatile boolean stopped;
  private volatile boolean aborted;

  RebalanceWalk(String self, long id, ClusterMetadataHolder cluster, ObjectStore store, ObjectMover mover,
      Relocation relocation, ExecutorService streams, BandwidthCap cap, RebalanceCounters counters) {
    this.relocation = relocation;
    this.self = self;
    this.id = id;
    this.cluster = cluster;
    this.store = store;
    this.mover = mover;
    this.streams = streams;
    this.cap = cap;
    this.counters = counters;
  }

  long id() {
    return id;
  }

  /** Stops the walk: a newer rebalance takes over ({@code abort} false), or this one was aborted. */
  void stop(boolean abort) {
    aborted |= abort;
    stopped = true;
  }

  @Override
  public void run() {
    try {
      log.info("node={} job={} rebalance walk started", self, jobId(id));
      // A snapshot: mountpaths may change meanwhile (resilver). One that leaves is skipped from then on; an object
      // the resilver moves to a mountpath walked already is committed there and handed on (Handoffs), so it is
      // neither skipped for good nor sent twice (a second send would be kept, not stored, by its owner).
      List<Mountpath> mountpaths = store.mountpaths();
      for (Mountpath mp : mountpaths) {
        if (stillRead(mp)) {
          count(mp);
        }
      }
      log.info("node={} job={} {} objects ({} bytes) to move", self, jobId(id), counters.toMove.get(),
          counters.bytesToMove.get());
      for (Mountpath mp : mountpaths) {
        if (!stillRead(mp)) {
          continue;
        }
        if (!(MARKERS.lastDone(mp.meta()) >= id)) {
          walk(mp);
        }
        if (stopped) {
          counters.end(aborted ? RebalanceProgress.ABORTED : RebalanceProgress.RUNNING);
          log.info("node={} job={} rebalance walk {} after {} moved", self, jobId(id),
              aborted ? "aborted" : "superseded", counters.sent.get());
          return;
        }
        if (counters.failed.get() == 0 && stillRead(mp)) {
          MARKERS.done(mp.meta(), id);
        }
      }
      counters.walkComplete();
      counters.end(counters.failed.get() == 0 ? RebalanceProgress.DONE : RebalanceProgress.FAILED);
      log.info("node={} job={} rebalance walk {}: {} moved ({} bytes), {} not needed, {} failed", self, jobId(id),
          counters.state(), counters.sent.get(), counters.bytesSent.get(), counters.kept.get(),
          counters.failed.get());
    } catch (InterruptedException e) {
      counters.end(RebalanceProgress.ABORTED);
      Thread.currentThread().interrupt();
    } catch (IOException | RuntimeException e) {
      log.error("node={} job={} rebalance walk failed", self, jobId(id), e);
      counters.failure("", "walk failed: " + e);
      counters.end(RebalanceProgress.FAILED);
    }
  }

  /**
   * Whether the object's main copy is on its HRW mountpath here: then the walk sends that one (and the removal after
   * its send takes the mirror copies along), not each mirror copy again. A mirror copy whose main copy is lost is
   * sent itself.
   */
  private boolean mainHeld(ObjectKey k) throws IOException {
    var loc = store.locate(k.bucket(), k.name());
    var main = loc.mountpath().meta().get(loc.key());
    return main != null && !main.isMirrorCopyOn(loc.mountpath().id());
  }

  private static String jobId(long id) {
    return io.granary.clustermap.Rebalance.JOB_PREFIX + id;
  }

  /** Counts what is left to move on {@code mp} from where its walk resumes. */
  private void count(Mountpath mp) throws IOException {
    if ((MARKERS.lastDone(mp.meta()) >= id)) {
      return;
    }
    ClusterMetadataHolder.Snapshot s = cluster.require();
    mp.meta().scan("", MARKERS.resumeAfter(mp.meta(), id), (key, meta) -> {
      if (!meta.isMirrorCopyOn(mp.id()) && misplaced(key, s) != null) { // a mirror copy goes with its main one
        counters.toMove.incrementAndGet();
        counters.bytesToMove.addAndGet(meta.size());
      }
      return !stopped;
    });
  }

  /** The moves of one batch of keys, and the last key of the batch: where the marker goes once they all ended. */
  private record Batch(String lastKey, List<ObjectKey> moving, List<Future<ObjectMover.Result>> moves) {
  }

  /**
   * Walks {@code mp} batch by batch. Up to {@link #WINDOW} batches are in flight at once, so the streams never wait
   * for the slowest move of a batch before the next batch's moves start; the marker advances over batches in key
   * order as each one ends, so a restart resumes after the last batch all of whose moves ended.
   */
  private void walk(Mountpath mp) throws IOException, InterruptedException {
    String after = MARKERS.resumeAfter(mp.meta(), id);
    ArrayDeque<Batch> window = new ArrayDeque<>();
    try {
      while (!stopped && stillRead(mp)) {
        List<String> keys = new ArrayList<>(BATCH);
        java.util.Set<String> mirrorCopies = new java.util.HashSet<>();
        try {
          mp.meta().scan("", after, (key, meta) -> {
            keys.add(key);
            if (meta.isMirrorCopyOn(mp.id())) {
              mirrorCopies.add(key);
            }
            return keys.size() < BATCH;
          });
        } catch (IOException e) {
          if (!stillRead(mp)) {
            break; // it left mid-walk: detached (its objects moved to others) or disabled (they are gone)
          }
          throw e;
        }
        if (keys.isEmpty()) {
          break;
        }
        ClusterMetadataHolder.Snapshot s = cluster.require();
        List<Future<ObjectMover.Result>> moves = new ArrayList<>();
        List<ObjectKey> moving = new ArrayList<>();
        for (String key : keys) {
          ObjectKey k = misplaced(key, s);
          if (k != null && !(mirrorCopies.contains(key) && mainHeld(k))) {
            moving.add(k);
            moves.add(streams.submit(() -> mover.move(k.bucket(), k.name(), cap, () -> stopped, true)));
          }
        }
        counters.walked.addAndGet(keys.size());
        after = keys.get(keys.size() - 1);
        window.add(new Batch(after, moving, moves));
        while (window.size() >= WINDOW) {
          finish(mp, window.poll());
        }
      }
      while (!window.isEmpty()) {
        finish(mp, window.poll());
      }
    } finally {
      for (Batch b : window) { // stopped or interrupted: nothing more is recorded, the walk resumes before them
        b.moves().forEach(f -> f.cancel(false));
      }
    }
  }

  /**
   * Waits for a batch's moves, removes the copies their owners now hold (one synced metadata write for the batch),
   * counts them, and records the walk past the batch (unless the walk was stopped or the mountpath left).
   */
  private void finish(Mountpath mp, Batch b) throws IOException, InterruptedException {
    List<Relocation.Sent> sent = new ArrayList<>();
    for (int i = 0; i < b.moves().size(); i++) {
      ObjectMover.Result r = await(b.moves().get(i));
      settle(b.moving().get(i), r);
      if (r.toRemove() != null) {
        sent.add(r.toRemove());
      }
    }
    if (!sent.isEmpty()) {
      relocation.removeSent(sent);
    }
    if (!stopped && stillRead(mp)) {
      MARKERS.walkedTo(mp.meta(), id, b.lastKey());
    }
  }

  private boolean stillRead(Mountpath mp) {
    return store.mountpathSet().isReadable(mp);
  }

  private ObjectMover.Result await(Future<ObjectMover.Result> f) throws InterruptedException {
    try {
      return f.get();
    } catch (ExecutionException e) {
      return new ObjectMover.Result(ObjectMover.Kind.FAILED, 0, String.valueOf(e.getCause()));
    } catch (java.util.concurrent.CancellationException e) {
      return new ObjectMover.Result(ObjectMover.Kind.STOPPED, 0, null);
    }
  }

  private void settle(ObjectKey k, ObjectMover.Result r) {
    switch (r.kind()) {
      case MOVED -> {
        counters.sent.incrementAndGet();
        counters.bytesSent.addAndGet(r.bytes());
      }
      case NOT_NEEDED -> counters.kept.incrementAndGet();
      case FAILED -> {
        counters.failure(k.bucket().bucket() + "/" + k.name(), r.error());
        log.warn("node={} job={} bucket={} object={} could not be moved: {}", self, jobId(id),
            k.bucket().bucket(), k.name(), r.error());
      }
      case STAYS, GONE, STOPPED, NOT_OWNER -> { }
    }
  }

  /** The object a key names if another target owns it under {@code s}'s map; null when it belongs here. */
  private ObjectKey misplaced(String key, ClusterMetadataHolder.Snapshot s) {
    ObjectKey k = ObjectKey.resolve(key, s);
    if (k == null) {
      return null;
    }
    Node owner = s.placement().owner(PlacementKey.digest(k.bucket().bucket(), k.name())).orElse(null);
    return owner == null || owner.id().equals(self) ? null : k;
  }
}
