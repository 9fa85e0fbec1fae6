package io.granary.target.resilver;

import io.granary.clustermap.Node;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.hrw.PlacementKey;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.mountpath.MountpathsReport;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.multipart.UploadRelocation;
import io.granary.target.meta.WalkMarkers;
import io.granary.target.storage.Mountpath;
import io.granary.target.storage.MountpathMove;
import io.granary.target.storage.MountpathSet;
import io.granary.target.storage.MountpathState;
import io.granary.target.storage.ObjectStore;
import io.granary.target.storage.StoredName;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One resilver on one target (AIStore {@code xact/xs/rebres.go}): walks the metadata of each readable mountpath
 * (never its directories) in key order and moves every object not on its HRW mountpath to it, {@code BATCH} keys at
 * a time, the misplaced among them in parallel; after each batch the last key dealt with is recorded
 * ({@link WalkMarkers}, column {@code resilver}), so a restart resumes there. In order:
 *
 * <ol>
 *   <li>Attaching mountpaths (back with objects from an earlier life) are checked: a copy dropped when another
 *       mountpath holds one or the object was removed while they were away; then they join placement.</li>
 *   <li>A counting pass finds what there is to move, for progress.</li>
 *   <li>The moving pass, mountpath by mountpath, objects then multipart uploads.</li>
 *   <li>Detaching mountpaths are checked empty (writes that raced the walk are moved too) and released.</li>
 * </ol>
 *
 * An object another target owns under the cluster map stays where it is on a mountpath that stays (rebalance sends
 * it away; moving it here first would only copy it twice); one on a detaching mountpath moves like any other, and
 * its commit hands it on to its owner ({@code Handoffs}). Objects moved are gone from the walked mountpath, so
 * neither a resumed walk nor a newer resilver moves anything twice.
 *
 * <p>Threads: {@link #run} on the resilver's walker thread; moves on its move pool.
 */
final class ResilverWalk implements Runnable {
  /** Where each mountpath's walk is (column {@code resilver}). */
  static final WalkMarkers MARKERS = new WalkMarkers("resilver");

  private static final Logger log = LoggerFactory.getLogger(ResilverWalk.class);
  /** Keys examined per batch; the misplaced among them move in parallel, then the marker advances. */
  static final int BATCH = 256;
  /** Passes over a detaching mountpath that still finds objects (writes racing the walk) before giving up. */
  static final int DRAIN_ROUNDS = 10;

  /** What the walk asks of the mountpath administration as it goes. */
  interface Transitions {
    /** An attaching mountpath was checked: it joins placement. */
    void joined(Mountpath mp) throws IOException;

    /** A detaching mountpath holds nothing any more: it is released. */
    void drained(Mountpath mp) throws IOException;

    /** The walk ended; {@code complete} when every mountpath was walked without failures. */
    void finished(long id, boolean complete);
  }

  private final String self;
  private final ObjectStore store;
  private final ClusterMetadataHolder cluster;
  private final MountpathMove move;
  private final UploadRelocation uploads; // null: no multipart uploads to move
  private final ExecutorService moves;
  private final ResilverCounters counters;
  private final Transitions transitions;
  private final MirroredObjects mirrored; // objects with mirror copies: repaired by mirroring, never moved as strays
  private volatile boolean stopped;

  ResilverWalk(String self, ObjectStore store, ClusterMetadataHolder cluster, MountpathMove move,
      UploadRelocation uploads, ExecutorService moves, ResilverCounters counters, Transitions transitions,
      MirroredObjects mirrored) {
    this.mirrored = mirrored;
    this.self = self;
    this.store = store;
    this.cluster = cluster;
    this.move = move;
    this.uploads = uploads;
    this.moves = moves;
    this.counters = counters;
    this.transitions = transitions;
  }

  long id() {
    return counters.id;
  }

  ResilverCounters counters() {
    return counters;
  }

  /** Stops the walk after the batch in progress: a newer resilver takes over, or the target stops. */
  void stop() {
    stopped = true;
  }

  @Override
  public void run() {
    boolean complete = false;
    try {
      awaitMetadata();
      log.info("node={} resilver={} started ({}): mountpaths {}", self, id(), counters.cause, store.mountpathSet());
      forgetServed();
      joinAttaching();
      List<Mountpath> walked = store.mountpaths(); // a snapshot: one that leaves meanwhile is skipped
      for (Mountpath mp : walked) {
        count(mp);
      }
      log.info("node={} resilver={} {} objects ({} bytes) to move", self, id(), counters.toMove.get(),
          counters.bytesToMove.get());
      for (Mountpath mp : walked) {
        walkMountpath(mp);
        if (stopped) {
          break;
        }
      }
      if (!stopped) {
        drainDetaching();
      }
      complete = !stopped && counters.failed.get() == 0;
      counters.end(stopped ? MountpathsReport.Resilver.SUPERSEDED
          : complete ? MountpathsReport.Resilver.DONE : MountpathsReport.Resilver.FAILED);
      log.info("node={} resilver={} {}: {} objects moved ({} bytes), {} kept, {} uploads moved, {} failed", self,
          id(), counters.state(), counters.moved.get(), counters.bytesMoved.get(), counters.kept.get(),
          counters.uploadsMoved.get(), counters.failed.get());
    } catch (InterruptedException e) {
      counters.end(MountpathsReport.Resilver.SUPERSEDED);
      Thread.currentThread().interrupt();
    } catch (IOException | RuntimeException e) {
      log.error("node={} resilver={} failed", self, id(), e);
      counters.failure("walk", e.toString());
      counters.end(MountpathsReport.Resilver.FAILED);
    } finally {
      if (!stopped) {
        transitions.finished(id(), complete);
      }
    }
  }

  /** Waits until this target knows the cluster's buckets: metadata keys name objects only through them. */
  private void awaitMetadata() throws InterruptedException {
    while (cluster.snapshot().isEmpty() && !stopped) {
      Thread.sleep(200); // a target that has not joined yet: its resilver waits for the first metadata
    }
  }

  private Map<String, BucketProps> buckets() {
    return cluster.require().buckets().buckets();
  }

  /**
   * Drops the records of removals made while a mountpath was away for every mountpath served now: they were for its
   * return, which is over (a crash between its join and the drop leaves them; kept, they would drop copies written
   * since at its next return).
   */
  private void forgetServed() throws IOException {
    for (MountpathSet.Entry e : store.mountpathSet().entries()) {
      if (e.state().served()) {
        store.awayDeletes().forget(e.path());
      }
    }
  }

  /**
   * Step 1: attaching mountpaths drop their stale copies (one elsewhere wins; one removed while they were away goes),
   * then join placement and are served; the records of what was removed meanwhile are dropped.
   */
  private void joinAttaching() throws IOException {
    for (MountpathSet.Entry e : store.mountpathSet().entries()) {
      if (e.state() != MountpathState.ATTACHING || stopped) {
        continue;
      }
      Mountpath mp = e.mountpath();
      long dropped = 0;
      List<StoredName> batch = new ArrayList<>();
      String[] after = {null};
      int[] scanned = {0};
      do {
        batch.clear();
        scanned[0] = 0;
        Map<String, BucketProps> b = buckets();
        mp.meta().scan("", after[0], (key, meta) -> {
          after[0] = key;
          scanned[0]++;
          StoredName n = StoredName.resolve(key, b); // null: its bucket is gone, and its data with it
          if (n != null) {
            batch.add(n);
          }
          return scanned[0] < BATCH;
        });
        for (StoredName n : batch) {
          if (!move.checkReturning(n.bucket(), n.name(), mp)) {
            dropped++;
          }
        }
      } while (scanned[0] > 0 && !stopped);
      if (!stopped) {
        log.info("node={} resilver={} mountpath={} checked: {} stale copies dropped (a copy elsewhere, or removed "
            + "while it was away); it joins", self, id(), mp, dropped);
        transitions.joined(mp);
        store.awayDeletes().forget(e.path()); // served now: a removal reaches its copies directly
      }
    }
  }

  /** Step 2: counts what is left to move on {@code mp} from where its walk resumes. */
  private void count(Mountpath mp) throws IOException {
    if (!readable(mp) || (MARKERS.lastDone(mp.meta()) == id())) {
      return;
    }
    ClusterMetadataHolder.Snapshot s = cluster.require();
    MountpathSet set = store.mountpathSet();
    mp.meta().scan("", MARKERS.resumeAfter(mp.meta(), id()), (key, meta) -> {
      MirroredObjects.Decision d;
      try {
        d = mirrorDecision(StoredName.resolve(key, s.buckets().buckets()), mp, meta, s, set);
      } catch (IOException e) {
        d = MirroredObjects.Decision.IN_PLACE; // a count, not a decision: the walk reads it again
      }
      if (d == MirroredObjects.Decision.REPAIR
          || d == MirroredObjects.Decision.NOT_MIRRORED && misplaced(key, mp, s, set) != null) {
        counters.toMove.incrementAndGet();
        counters.bytesToMove.addAndGet(meta.size());
      }
      return !stopped;
    });
  }

  /** Step 3 for one mountpath: its misplaced objects, then its misplaced multipart uploads. */
  private void walkMountpath(Mountpath mp) throws IOException, InterruptedException {
    if (!readable(mp) || (MARKERS.lastDone(mp.meta()) == id())) {
      return;
    }
    boolean clean = walk(mp, MARKERS.resumeAfter(mp.meta(), id()), true);
    if (stopped || !readable(mp)) {
      return;
    }
    relocateUploads(mp);
    if (clean) {
      MARKERS.done(mp.meta(), id());
    }
  }

  /**
   * Walks {@code mp}'s metadata from after {@code after}, moving what is misplaced batch by batch.
   *
   * @param mark whether to record the walk's progress (not for the re-checks of a detaching mountpath)
   * @return whether every misplaced object was dealt with (none failed)
   */
  private boolean walk(Mountpath mp, String after, boolean mark) throws IOException, InterruptedException {
    boolean clean = true;
    while (!stopped) {
      List<String> keys = new ArrayList<>(BATCH);
      List<ObjectMeta> metas = new ArrayList<>(BATCH);
      try {
        mp.meta().scan("", after, (key, meta) -> {
          keys.add(key);
          metas.add(meta);
          return keys.size() < BATCH;
        });
      } catch (IOException e) {
        if (!readable(mp)) {
          return false; // it left mid-walk (disabled): its objects are not read any more
        }
        throw e;
      }
      if (keys.isEmpty()) {
        return clean;
      }
      ClusterMetadataHolder.Snapshot s = cluster.require();
      MountpathSet set = store.mountpathSet();
      List<StoredName> moving = new ArrayList<>();
      List<Future<MountpathMove.Result>> results = new ArrayList<>();
      for (int i = 0; i < keys.size(); i++) {
        String key = keys.get(i);
        StoredName m = StoredName.resolve(key, s.buckets().buckets());
        MirroredObjects.Decision d = mirrorDecision(m, mp, metas.get(i), s, set);
        if (d == MirroredObjects.Decision.REPAIR) {
          moving.add(m);
          results.add(moves.submit(() -> mirrored.repair(m)));
          continue;
        } else if (d == MirroredObjects.Decision.IN_PLACE) {
          continue;
        }
        StoredName n = misplaced(key, mp, s, set);
        if (n != null) {
          moving.add(n);
          results.add(moves.submit(() -> move.move(n.bucket(), n.name(), mp)));
        }
      }
      for (int i = 0; i < results.size(); i++) {
        clean &= settle(moving.get(i), mp, results.get(i));
      }
      after = keys.get(keys.size() - 1);
      if (mark && !stopped && readable(mp)) {
        MARKERS.walkedTo(mp.meta(), id(), after);
      }
    }
    return clean;
  }

  private boolean settle(StoredName n, Mountpath mp, Future<MountpathMove.Result> f) throws InterruptedException {
    try {
      MountpathMove.Result r = f.get();
      switch (r.outcome()) {
        case MOVED -> {
          counters.moved(r.bytes());
        }
        case KEPT -> counters.kept.incrementAndGet();
        case IN_PLACE, GONE -> { }
      }
      return true;
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      counters.failure(n.bucket().bucket() + "/" + n.name(), String.valueOf(cause));
      log.warn("node={} resilver={} mountpath={} bucket={} object={} could not be moved; it stays and is read "
          + "there: {}", self, id(), mp, n.bucket().bucket(), n.name(), String.valueOf(cause));
      return false;
    }
  }

  private void relocateUploads(Mountpath mp) throws IOException {
    if (uploads == null) {
      return;
    }
    int n = uploads.relocate(mp, buckets().values());
    counters.uploadsMoved.addAndGet(n);
  }

  /**
   * Step 4: a detaching mountpath is walked again until it holds nothing (objects of existing buckets, uploads, work
   * files of writes in progress), then released. Writes that began before it left placement may still land there.
   */
  private void drainDetaching() throws IOException, InterruptedException {
    for (MountpathSet.Entry e : store.mountpathSet().entries()) {
      if (e.state() != MountpathState.DETACHING) {
        continue;
      }
      Mountpath mp = e.mountpath();
      for (int round = 0; ; round++) {
        if (stopped || !readable(mp)) {
          return;
        }
        long left = remaining(mp);
        if (left == 0 && mp.usage().workBytes() == 0) {
          log.info("node={} resilver={} mountpath={} holds no objects any more: released", self, id(), mp);
          store.awayDeletes().handOver(mp);
          transitions.drained(mp);
          break;
        }
        if (round == DRAIN_ROUNDS) {
          counters.failure("mountpath " + mp, left + " objects or uploads could not be moved off; it stays detaching");
          log.warn("node={} resilver={} mountpath={} still holds {} objects or uploads after {} passes; it stays "
              + "detaching", self, id(), mp, left, round);
          break;
        }
        if (round > 0) {
          Thread.sleep(500); // writes in progress finish (their work files count) before the next pass
        }
        walk(mp, null, false);
        relocateUploads(mp);
      }
    }
  }

  /** Objects of existing buckets and their multipart uploads still on {@code mp}. */
  private long remaining(Mountpath mp) throws IOException {
    Map<String, BucketProps> b = buckets();
    long[] n = {0};
    mp.meta().scan("", null, (key, meta) -> {
      n[0] += StoredName.resolve(key, b) != null ? 1 : 0;
      return true;
    });
    return n[0] + (uploads == null ? 0 : uploads.remaining(mp, b.values()));
  }

  /**
   * The object a key on {@code mp} names if it should move to another mountpath under {@code set}: its HRW
   * mountpath is another one, and this target owns it or {@code mp} is leaving. Null otherwise.
   */
  private StoredName misplaced(String key, Mountpath mp, ClusterMetadataHolder.Snapshot s, MountpathSet set) {
    StoredName n = StoredName.resolve(key, s.buckets().buckets());
    if (n == null || set.available().isEmpty()) {
      return null;
    }
    long digest = PlacementKey.digest(n.bucket().bucket(), n.name());
    if (set.pick(digest) == mp) {
      return null;
    }
    if (set.isAvailable(mp)) {
      Node owner = s.placement().owner(digest).orElse(null);
      if (owner != null && !owner.id().equals(self)) {
        return null; // rebalance sends it to its owner; moving it here first would copy it twice
      }
    }
    return n;
  }

  /**
   * Whether mirroring takes the record {@code meta} of {@code n} on {@code mp}: not for an unknown bucket, nor (on a
   * mountpath that stays) for an object another target owns, which rebalance sends away with its copies.
   */
  private MirroredObjects.Decision mirrorDecision(StoredName n, Mountpath mp, ObjectMeta meta,
      ClusterMetadataHolder.Snapshot s, MountpathSet set) throws IOException {
    if (n == null || set.available().isEmpty()) {
      return MirroredObjects.Decision.NOT_MIRRORED;
    }
    if (set.isAvailable(mp)) {
      Node owner = s.placement().owner(PlacementKey.digest(n.bucket().bucket(), n.name())).orElse(null);
      if (owner != null && !owner.id().equals(self)) {
        return MirroredObjects.Decision.NOT_MIRRORED;
      }
    }
    return mirrored.decide(n, mp, meta, set);
  }

  private boolean readable(Mountpath mp) {
    return store.mountpathSet().isReadable(mp);
  }
}
