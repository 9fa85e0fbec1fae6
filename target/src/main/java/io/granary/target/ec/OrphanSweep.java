package io.granary.target.ec;

import io.granary.clustermap.Node;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.Provider;
import io.granary.clustermap.hrw.PlacementKey;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.target.storage.Mountpath;
import io.granary.target.storage.ObjectStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds slices this target holds that no owner wants any more: a DELETE or an overwrite made while this target was
 * down could not remove them. For each object it holds slices of, it asks the object's owner for its current
 * version ({@code GET /v1/ec/current/...}); versions older than it go, or, when the owner deleted the object, those
 * not newer than the delete. An owner that knows nothing of the object (its record lost with a disk) keeps them all.
 * Runs only under a settled map with the owner active (a missing record is then a deleted object, not one still
 * moving), on the walk thread: at start and when a target becomes active again.
 */
final class OrphanSweep {
  private static final Logger log = LoggerFactory.getLogger(OrphanSweep.class);

  private final String nodeId;
  private final ObjectStore store;
  private final ClusterMetadataHolder cluster;
  private final SliceStore slices;
  private final EcPeers peers;

  OrphanSweep(String nodeId, ObjectStore store, ClusterMetadataHolder cluster, SliceStore slices, EcPeers peers) {
    this.nodeId = nodeId;
    this.store = store;
    this.cluster = cluster;
    this.slices = slices;
    this.peers = peers;
  }

  /** One pass over every slice held here; the number of slices removed. */
  long run() throws InterruptedException {
    Set<Path> objectDirs = new LinkedHashSet<>();
    for (Mountpath mp : store.mountpathSet().readable()) {
      Path root = mp.root().resolve(SliceStore.DIR);
      if (!Files.isDirectory(root)) {
        continue;
      }
      try (Stream<Path> walk = Files.walk(root, 6)) {
        walk.filter(p -> p.getFileName().toString().endsWith(".json")).forEach(p -> objectDirs.add(p.getParent()));
      } catch (IOException | java.io.UncheckedIOException e) {
        log.warn("node={} mountpath={} slice sweep could not list: {}", nodeId, mp, e.toString());
      }
    }
    long removed = 0;
    for (Path dir : objectDirs) {
      if (Thread.currentThread().isInterrupted()) {
        throw new InterruptedException();
      }
      try {
        removed += sweep(dir);
      } catch (IOException | RuntimeException e) {
        log.warn("node={} slice sweep of {} failed: {}", nodeId, dir, e.toString());
      }
    }
    log.info("node={} slice sweep done: objects={} slices removed={}", nodeId, objectDirs.size(), removed);
    return removed;
  }

  private long sweep(Path dir) throws IOException, InterruptedException {
    SliceRecord any;
    try (Stream<Path> files = Files.list(dir)) {
      Optional<Path> f = files.filter(p -> p.getFileName().toString().endsWith(".json")).findFirst();
      if (f.isEmpty()) {
        return 0;
      }
      any = SliceRecord.decode(Files.readAllBytes(f.get()));
    }
    ClusterMetadataHolder.Snapshot s = cluster.snapshot().orElse(null);
    if (s == null || !s.map().settled()) {
      return 0;
    }
    Bucket bucket = new Bucket(Provider.parse(any.provider()), any.bucket());
    BucketProps b = s.buckets().get(bucket).orElse(null);
    if (b == null || !b.id().equals(any.bucketId())) {
      return 0; // the bucket's removal takes its slices (SliceStore.destroyBucket)
    }
    Node owner = s.placement().owner(PlacementKey.digest(bucket, any.object())).orElse(null);
    if (owner == null || owner.id().equals(nodeId) || owner.state() != NodeState.ACTIVE) {
      return 0;
    }
    SliceRoutes.Current current;
    try {
      current = peers.current(owner, b, any.object()).get(30, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      return 0; // ask again at the next sweep
    }
    if (current == null) {
      return 0; // the owner knows nothing of it: its record may be lost, and these slices are what rebuilds it
    }
    // Older than the owner's version, or not newer than its last delete: no read can want them any more.
    long upTo = current.version() == null ? current.deletedAt() : mtimeOf(current.version()) - 1;
    int n = slices.remove(b, any.object(), r -> r.mtime() <= upTo);
    if (n > 0) {
      log.info("node={} bucket={} object={}: removed {} orphaned slices (owner {} holds {})", nodeId, b.bucket(),
          any.object(), n, owner.id(), current.version() == null ? "a delete at " + current.deletedAt()
              : "version " + current.version());
    }
    return n;
  }

  private static long mtimeOf(String version) {
    return Long.parseLong(version.substring(0, version.indexOf('-')));
  }
}
