package io.granary.target.rebalance;

import io.granary.clustermap.Node;
import io.granary.clustermap.Rebalance;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.common.auth.ClusterSigner;
import io.granary.common.control.ControlClient;
import io.granary.common.exec.Background;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.client.UpstreamPool;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.rebalance.RebalanceProgress;
import io.granary.target.multipart.OwnerDelivery;
import io.granary.target.storage.Mountpath;
import io.granary.target.storage.ObjectStore;
import io.granary.target.storage.Relocation;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.time.Clock;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This target's part in rebalancing. It follows the cluster map: a new running {@link Rebalance} stops the walk of
 * an older one and starts its own ({@link RebalanceWalk}), resuming where a previous run of this process left it;
 * an aborted one stops; a finished one lets the tombstones of deletes go. It also hands on writes this target does
 * not own ({@link Handoffs}), pushes objects to owners that ask for them (get-from-neighbor) and counts what it
 * receives. Its progress is {@code GET /v1/rebalance}.
 *
 * <p>Threads: map changes arrive on whatever thread applies them and only start or stop walks; the walk runs on
 * {@code rebalance-ID}, its moves on {@code rebalance-stream-ID-N}, pushes on {@code push-ID-N}.
 */
public final class Rebalancer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Rebalancer.class);
  static final int PUSH_THREADS = 8;
  /** Threads that write and commit the rebalance's received copies (each mostly waits on its fsyncs). */
  private static final int RECEIVE_THREADS = 4;

  /** What a target tells about its space, for the primary's capacity check before targets leave placement. */
  public interface Space {
    /** Bytes of objects held now. */
    long heldBytes();

    /** Bytes that fit before the high watermark, over all mountpaths. */
    long roomBytes();

    /**
     * Whether multipart uploads are in progress here: they stay until completed or aborted, so a target leaving
     * placement is not drained (and the rebalance does not finish) before they have ended.
     */
    default boolean holdsUploads() throws IOException {
      return false;
    }
  }

  private final String self;
  private final ClusterMetadataHolder cluster;
  private final ObjectStore store;
  private final Relocation relocation;
  private final ObjectSender sender;
  private final ObjectMover mover;
  private final Handoffs handoffs;
  private final RebalanceConfig config;
  private final BandwidthCap cap;
  private final Space space;
  private final Clock clock;
  private final SendLoops sendLoops;
  private final ExecutorService walker;
  private final ExecutorService streams;
  private final ThreadPoolExecutor pushes;
  private final BoundedExecutor receiving;
  private final RebalanceStats stats = new RebalanceStats();
  private RebalanceWalk walk;          // the latest walk started here; guarded by this
  // The latest rebalance's counters (walk or not); written under this, read without it by scrapes, which must not
  // wait behind follow() reading walk markers.
  private volatile RebalanceCounters counters;
  private long tombstonesClearedFor;   // guarded by this
  private volatile boolean closed;

  /**
   * @param sendLoops event loops of the rebalancer's own, shut down by {@link #close}
   */
  public Rebalancer(String self, ClusterMetadataHolder cluster, ObjectStore store, UpstreamPool pool,
      SendLoops sendLoops, ClusterSigner signer, RebalanceConfig config, Space space) {
    this.self = self;
    this.sendLoops = sendLoops;
    this.cluster = cluster;
    this.store = store;
    this.relocation = new Relocation(store, digest -> cluster.snapshot()
        .flatMap(snap -> snap.placement().owner(digest)).map(n -> n.id().equals(self)).orElse(false));
    this.sender = new ObjectSender(pool, sendLoops, signer);
    this.mover = new ObjectMover(self, cluster, relocation, sender, stats);
    this.handoffs = new Handoffs(self, cluster, store, mover, stats, this::sentOutsideWalk);
    this.config = config;
    this.cap = BandwidthCap.of(config.bandwidthBytesPerSecond());
    this.space = space;
    this.clock = Clock.systemUTC();
    this.walker = Executors.newSingleThreadExecutor(Background.threads("rebalance-" + self));
    this.streams = Executors.newFixedThreadPool(config.streams(),
        Background.threads("rebalance-stream-" + self));
    this.pushes = new ThreadPoolExecutor(PUSH_THREADS, PUSH_THREADS, 60, TimeUnit.SECONDS,
        new LinkedBlockingQueue<>(1024), new DefaultThreadFactory("push-" + self, true));
    this.receiving = new BoundedExecutor("receive-" + self, RECEIVE_THREADS, 4096,
        Background.threads("receive-" + self));
  }

  /** Hands on what a previous run left, follows the map from now on, and resumes a rebalance in progress. */
  public void start() throws IOException {
    store.addCommitListener(handoffs);
    handoffs.start();
    cluster.onChange((old, now) -> follow(now));
    cluster.snapshot().ifPresent(this::follow);
  }

  /** Where the rebalance's received copies are written and committed, on background threads ({@link Background}). */
  BoundedExecutor receiving() {
    return receiving;
  }

  /** Sends files other than objects to other targets over the transport's connections (erasure coding). */
  public PeerFiles peerFiles() {
    return new PeerFiles(sender);
  }

  public Relocation relocation() {
    return relocation;
  }

  private synchronized void follow(ClusterMetadataHolder.Snapshot s) {
    Rebalance r = s.map().rebalance();
    if (closed || r == null) {
      return;
    }
    if (r.running()) {
      if (counters == null || counters.id < r.id()) {
        begin(r.id());
      }
    } else if (r.state() == Rebalance.State.ABORTED) {
      if (walk != null && walk.id() == r.id()) {
        walk.stop(true);
      }
    } else if (s.map().settled() && tombstonesClearedFor < r.id()) {
      tombstonesClearedFor = r.id();
      walker.execute(() -> {
        try {
          relocation.clearTombstones(); // every object is on its owner: no moved copy can arrive any more
        } catch (IOException e) {
          log.warn("node={} clearing tombstones after {} failed: {}", self, r.jobId(), e.toString());
        }
      });
    }
  }

  /** Starts rebalance {@code id} here, stopping an older walk; a walk already completed needs nothing. */
  private void begin(long id) {
    if (walk != null) {
      walk.stop(false);
    }
    boolean done;
    try {
      done = allDone(id);
    } catch (IOException e) {
      log.warn("node={} reading rebalance markers failed; walking again: {}", self, e.toString());
      done = false;
    }
    if (done) {
      counters = RebalanceCounters.completed(id, stats, clock);
      walk = null;
      return;
    }
    counters = new RebalanceCounters(id, stats, clock);
    walk = new RebalanceWalk(self, id, cluster, store, mover, relocation, streams, cap, counters);
    walker.execute(walk);
  }

  private boolean allDone(long id) throws IOException {
    for (Mountpath mp : store.mountpaths()) {
      if (RebalanceWalk.MARKERS.lastDone(mp.meta()) < id) {
        return false;
      }
    }
    return true;
  }

  /** A copy from another target was stored here (receivers count it). */
  void received(long bytes) {
    stats.received(bytes);
    RebalanceCounters c = counters;
    if (c != null) {
      c.received.incrementAndGet();
      c.bytesReceived.addAndGet(bytes);
    }
  }

  /** An object moved by a push or a handoff rather than the walk: it counts in the current rebalance too. */
  private void sentOutsideWalk(long bytes) {
    RebalanceCounters c = counters;
    if (c != null) {
      c.sent.incrementAndGet();
      c.bytesSent.addAndGet(bytes);
    }
  }

  /**
   * Sends the copy held here to {@code to} now and removes it here once {@code to} has it (get-from-neighbor).
   * Completes with null when this target does not hold the object.
   */
  CompletableFuture<Relocation.Outcome> push(BucketProps bucket, String name, Node to) {
    CompletableFuture<Relocation.Outcome> f = new CompletableFuture<>();
    try {
      pushes.execute(() -> {
        try {
          ObjectMover.Result r = mover.push(bucket, name, to);
          if (r != null && r.kind() == ObjectMover.Kind.MOVED) {
            sentOutsideWalk(r.bytes());
          }
          f.complete(r == null ? null : r.kind() == ObjectMover.Kind.MOVED ? Relocation.Outcome.STORED
              : Relocation.Outcome.KEPT);
          if (r != null && r.toRemove() != null) {
            // After answering: the owner that asked serves its client from its own committed copy meanwhile.
            relocation.removeSent(r.toRemove().bucket(), r.toRemove().name(), r.toRemove().meta());
          }
        } catch (Throwable t) {
          if (!f.completeExceptionally(t)) {
            log.warn("node={} bucket={} object={} removing the copy pushed to {} failed: {}", self,
                bucket.bucket(), name, to.id(), t.toString());
          }
        }
      });
    } catch (RejectedExecutionException e) {
      f.completeExceptionally(new io.granary.common.error.ServiceUnavailableException(
          io.granary.common.error.ServiceUnavailableException.BUSY, "target " + self + " has too many pushes queued",
          1));
    }
    return f;
  }

  /** This target's progress in the latest rebalance it knows of. */
  public RebalanceProgress progress() {
    RebalanceCounters c = counters;
    boolean holds = holdsObjects();
    if (c == null) {
      return new RebalanceProgress(self, 0, RebalanceProgress.IDLE, 0, 0, 0, false, 0, 0, 0, 0, 0, 0, null,
          handoffs.pending(), space.heldBytes(), holds, space.roomBytes(), 0, null, cap.bytesPerSecond(), null, null);
    }
    return c.snapshot(self, handoffs.pending(), space.heldBytes(), holds, space.roomBytes(), cap.bytesPerSecond());
  }

  /**
   * Where a multipart upload completed here sends its object when another target owns the key: the owner, over this
   * target's transport ({@code client} asks it the ETag a completion's condition is checked against).
   */
  public OwnerDelivery completions(ControlClient client) {
    return new CompletionDelivery(self, cluster, sender, client);
  }

  private boolean holdsObjects() {
    try {
      if (space.holdsUploads()) {
        return true;
      }
    } catch (IOException e) {
      return true; // cannot tell: not drained
    }
    for (Mountpath mp : store.mountpaths()) {
      try {
        if (!mp.meta().isEmpty()) {
          return true;
        }
      } catch (IOException e) {
        return true; // cannot tell: not drained
      }
    }
    return false;
  }

  /** What this target moved to and from other targets since it started, for metrics. */
  public RebalanceStats stats() {
    return stats;
  }

  /** The id of the latest rebalance this target took part in since it started; 0 before the first. */
  public long latestId() {
    RebalanceCounters c = counters;
    return c == null ? 0 : c.id;
  }

  /** Whether a rebalance walk is running here now. */
  public boolean walking() {
    RebalanceCounters c = counters;
    return c != null && RebalanceProgress.RUNNING.equals(c.state());
  }

  /**
   * Bytes the running walk found to move and has not sent yet; 0 when no walk runs. An estimate from above: the
   * counting pass is still adding to it early on, and objects a receiver did not need, or that went meanwhile, stay
   * in it until the walk ends.
   */
  public long remainingBytes() {
    RebalanceCounters c = counters;
    if (c == null || !RebalanceProgress.RUNNING.equals(c.state())) {
      return 0;
    }
    return Math.max(0, c.bytesToMove.get() - c.bytesSent.get());
  }

  /** Objects written here that another target owns, not yet sent on (queued or in flight). */
  public long pendingHandoffs() {
    return handoffs.pending();
  }

  @Override
  public void close() {
    synchronized (this) {
      closed = true;
      if (walk != null) {
        walk.stop(false);
      }
    }
    handoffs.close();
    walker.shutdownNow();
    streams.shutdownNow();
    pushes.shutdownNow();
    receiving.close();
    try {
      walker.awaitTermination(10, TimeUnit.SECONDS);
      streams.awaitTermination(10, TimeUnit.SECONDS);
      sendLoops.shutdown(10);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
