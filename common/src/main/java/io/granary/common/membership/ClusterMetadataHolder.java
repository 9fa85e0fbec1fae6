package io.granary.common.membership;

import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.TargetPlacement;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.BucketMetadata;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.common.error.BucketNotFoundException;
import io.granary.common.error.ConflictException;
import io.granary.common.error.ServiceUnavailableException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's copy of cluster metadata: the newest cluster map and bucket metadata it has seen, with the placement
 * derived from that map. Every node (primary included) has one.
 *
 * <p>Updates are checked and persisted before they become visible: an update from another cluster (different
 * uuid) is refused with {@code ClusterMismatch}, one from an older primary epoch with {@code StaleEpoch}; an older
 * version of either part is ignored; the result is
 * written to disk, then published. Readers get a consistent snapshot without locking.
 */
public final class ClusterMetadataHolder {
  private static final Logger log = LoggerFactory.getLogger(ClusterMetadataHolder.class);

  /** Snapshot: metadata and the placement of its map, built once per version. */
  public record Snapshot(ClusterMetadata metadata, TargetPlacement placement) {
    public ClusterMap map() {
      return metadata.map();
    }

    public BucketMetadata buckets() {
      return metadata.buckets();
    }
  }

  private final String nodeId;
  private final MetadataFiles files;
  private volatile Snapshot current;
  private volatile boolean receivedSinceStart; // metadata of this cluster applied since the process started
  private final List<BiConsumer<Snapshot, Snapshot>> listeners = new CopyOnWriteArrayList<>();
  // Lock-free: event loops ask whenMapAtLeast, and apply() holds this object's lock while it syncs files and runs
  // listeners (a joining target's loops waited 43 ms on it, JFR).
  private final Queue<Waiter> waiters = new ConcurrentLinkedQueue<>();

  /** Someone waiting for a map version. */
  private record Waiter(long version, CompletableFuture<Snapshot> future) {
  }

  /** Loads persisted metadata, if any. */
  public ClusterMetadataHolder(String nodeId, MetadataFiles files) throws IOException {
    this.nodeId = nodeId;
    this.files = files;
    Optional<ClusterMetadata> saved = files.readNewest();
    this.current = saved.map(md -> new Snapshot(md, md.map().placement())).orElse(null);
    saved.ifPresent(md -> log.info("node={} loaded cluster map v{} and bucket metadata v{} of cluster {}",
        nodeId, md.map().version(), md.buckets().version(), md.map().uuid()));
  }

  /**
   * Whether metadata of this cluster was applied since this process started (a registration answer, a push, or
   * the primary's own bootstrap), as opposed to only the copy loaded from disk: a restarted node holds a map in
   * which it may be listed active long before the primary has heard from it.
   */
  public boolean receivedSinceStart() {
    return receivedSinceStart;
  }

  /** The current snapshot, or empty before this node has joined a cluster. */
  public Optional<Snapshot> snapshot() {
    return Optional.ofNullable(current);
  }

  /** The current snapshot; throws if this node has no metadata yet. */
  public Snapshot require() {
    Snapshot s = current;
    if (s == null) {
      throw new ServiceUnavailableException(ServiceUnavailableException.NO_TARGETS,
          "node " + nodeId + " has not joined a cluster yet", 2);
    }
    return s;
  }

  /**
   * Completes once this node holds a cluster map of at least {@code version} (at once when it does already). The
   * future completes on the thread that applies that map; callers hop to their own thread.
   */
  public CompletableFuture<Snapshot> whenMapAtLeast(long version) {
    Snapshot s = current;
    if (s != null && s.map().version() >= version) {
      return CompletableFuture.completedFuture(s);
    }
    Waiter w = new Waiter(version, new CompletableFuture<>());
    waiters.add(w);
    w.future().whenComplete((v, err) -> waiters.remove(w));
    // apply() publishes the map before it looks at waiters: either it sees this waiter, or this sees its map.
    s = current;
    if (s != null && s.map().version() >= version) {
      w.future().complete(s);
    }
    return w.future();
  }

  /** Registers a callback run after each published change with (old, new); old is null on the first. */
  public void onChange(BiConsumer<Snapshot, Snapshot> listener) {
    listeners.add(listener);
  }

  /**
   * Applies pushed or fetched metadata: takes each part that is newer, persists, publishes.
   *
   * @return true if anything changed
   * @throws ConflictException {@code ClusterMismatch} when {@code incoming} belongs to another cluster,
   *     {@code StaleEpoch} when its map is of an older primary epoch than ours
   */
  public synchronized boolean apply(ClusterMetadata incoming) {
    Snapshot old = current;
    ClusterMetadata next;
    if (old == null) {
      next = incoming;
    } else {
      if (!old.map().sameCluster(incoming.map())) {
        throw new ConflictException(ConflictException.CLUSTER_MISMATCH, "node " + nodeId + " belongs to cluster "
            + old.map().uuid() + " and refuses metadata of cluster " + incoming.map().uuid());
      }
      if (incoming.map().epoch() < old.map().epoch()) {
        // A primary deposed by a Lease election still pushing: everything it sends is older than the new term's.
        throw new ConflictException(ConflictException.STALE_EPOCH, "node " + nodeId + " follows the primary of epoch "
            + old.map().epoch() + " (" + old.map().primary() + ") and refuses metadata of epoch "
            + incoming.map().epoch() + " from " + incoming.map().primary());
      }
      ClusterMap map = incoming.map().epoch() > old.map().epoch() || incoming.map().version() > old.map().version()
          ? incoming.map() : old.map();
      BucketMetadata bmd = incoming.buckets().version() > old.buckets().version() ? incoming.buckets() : old.buckets();
      if (map == old.map() && bmd == old.buckets()) {
        receivedSinceStart = true; // nothing newer, but the primary's copy is no newer than ours either
        return false;
      }
      next = new ClusterMetadata(map, bmd);
    }
    try {
      files.write(next);
    } catch (IOException e) {
      throw new UncheckedIOException("persisting cluster metadata on node " + nodeId + " failed", e);
    }
    Snapshot snap = new Snapshot(next, old != null && old.map() == next.map() ? old.placement() : next.map().placement());
    current = snap;
    receivedSinceStart = true;
    if (old == null || old.map().version() != next.map().version()) {
      log.info("node={} cluster map v{} ({} proxies, {} targets)", nodeId, next.map().version(),
          next.map().proxies().size(), next.map().targets().size());
    }
    if (old == null || old.buckets().version() != next.buckets().version()) {
      log.info("node={} bucket metadata v{} ({} buckets)", nodeId, next.buckets().version(),
          next.buckets().buckets().size());
    }
    for (Waiter w : waiters) {
      if (snap.map().version() >= w.version()) {
        w.future().complete(snap);
      }
    }
    for (BiConsumer<Snapshot, Snapshot> l : listeners) {
      try {
        l.accept(old, snap);
      } catch (RuntimeException e) {
        log.error("node={} metadata listener failed", nodeId, e);
      }
    }
    return true;
  }

  /** The bucket's current properties; 404 {@code BucketNotFound} when it does not exist. */
  public BucketProps requireBucket(Bucket bucket) {
    Snapshot s = current;
    if (s == null) {
      throw new BucketNotFoundException(bucket.toString());
    }
    return s.buckets().get(bucket)
        .orElseThrow(() -> new BucketNotFoundException(bucket.toString()));
  }

  public String nodeId() {
    return nodeId;
  }
}
