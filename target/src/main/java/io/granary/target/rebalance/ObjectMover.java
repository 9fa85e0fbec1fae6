package io.granary.target.rebalance;

import io.granary.clustermap.Node;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.hrw.PlacementKey;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.target.storage.Relocation;
import io.granary.target.storage.StoredObject;
import java.io.IOException;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves one object this target holds to the target that owns it under the current map: sends it, and removes the
 * copy here only once the owner has committed a verified copy (or already held the same or a newer version, or
 * deleted the object since), only if the receiver says it owns the object under its own map (at least as new as
 * this target's), and only if the copy here did not change meanwhile. The owner is looked up again on
 * every attempt, so a newer map sends the object straight to its newest owner.
 *
 * <p>Threads: blocks its caller (a rebalance stream, a handoff worker or a push worker).
 */
final class ObjectMover {
  private static final Logger log = LoggerFactory.getLogger(ObjectMover.class);
  private static final long MAX_BACKOFF_MS = 5000;

  private final String self;
  private final ClusterMetadataHolder cluster;
  private final Relocation relocation;
  private final ObjectSender sender;
  private final RebalanceStats stats;

  ObjectMover(String self, ClusterMetadataHolder cluster, Relocation relocation, ObjectSender sender,
      RebalanceStats stats) {
    this.self = self;
    this.cluster = cluster;
    this.relocation = relocation;
    this.sender = sender;
    this.stats = stats;
  }

  /** How a move ended. */
  enum Kind {
    /** The owner stored the copy; the one here is gone. */
    MOVED,
    /** The owner did not need it (same or newer version, or deleted there); the one here is gone. */
    NOT_NEEDED,
    /** This target owns the object now: it stays. */
    STAYS,
    /** The object (or its bucket) is not here any more. */
    GONE,
    /** It cannot be moved (e.g. its content fails its checksum at the receiver); it stays here. */
    FAILED,
    /** Stopped before it could be moved (a newer rebalance, an abort, shutdown); it stays here. */
    STOPPED,
    /**
     * The receiver took the copy but does not own the object under its (newer) map: it hands it on, and the copy here
     * stays until this target sends to the owner too.
     */
    NOT_OWNER
  }

  /**
   * @param bytes bytes moved (MOVED only)
   * @param error why it failed (FAILED only)
   * @param toRemove the copy here, when the caller asked to remove it itself (a walk removes a batch's at once)
   */
  record Result(Kind kind, long bytes, String error, Relocation.Sent toRemove) {
    Result(Kind kind, long bytes, String error) {
      this(kind, bytes, error, null);
    }
  }

  /**
   * Moves the object, retrying what may succeed later (the owner down or restarting, not knowing the bucket yet)
   * with a growing backoff, until it is moved, needs no move, fails for good, or {@code stop} says so.
   */
  Result move(BucketProps bucket, String name, BandwidthCap cap, BooleanSupplier stop) throws InterruptedException {
    return move(bucket, name, cap, stop, false);
  }

  /**
   * As {@link #move(BucketProps, String, BandwidthCap, BooleanSupplier)}; with {@code deferRemoval} the copy here is
   * not removed but returned in {@link Result#toRemove}, for the caller to remove with others at once.
   */
  Result move(BucketProps bucket, String name, BandwidthCap cap, BooleanSupplier stop, boolean deferRemoval)
      throws InterruptedException {
    long digest = PlacementKey.digest(bucket.bucket(), name);
    long backoff = 250;
    int attempts = 0;
    while (true) {
      if (stop.getAsBoolean()) {
        return new Result(Kind.STOPPED, 0, null);
      }
      ClusterMetadataHolder.Snapshot s = cluster.require();
      BucketProps current = s.buckets().buckets().get(bucket.bucket().key());
      if (current == null || !current.id().equals(bucket.id())) {
        return new Result(Kind.GONE, 0, null); // the bucket went: its data goes with it
      }
      Node owner = s.placement().owner(digest).orElse(null);
      if (owner != null && owner.id().equals(self)) {
        return new Result(Kind.STAYS, 0, null);
      }
      String why;
      if (owner == null || owner.state() != NodeState.ACTIVE) {
        why = owner == null ? "no target in placement" : "owner " + owner.id() + " is " + owner.state().wireName();
      } else {
        try {
          Result r = sendOnce(bucket, name, owner, cap, deferRemoval, false);
          if (r == null) {
            return new Result(Kind.GONE, 0, null);
          }
          if (r.kind() != Kind.NOT_OWNER) {
            return r;
          }
          // The receiver holds a newer map that placed the object elsewhere: this target gets that map too (it was
          // pushed to every node), and the next attempt goes to the newest owner.
          why = "target " + owner.id() + " has a newer map and no longer owns it";
        } catch (TransferException e) {
          if (!e.retryable()) {
            return new Result(Kind.FAILED, 0, e.getMessage());
          }
          why = e.getMessage();
        } catch (IOException e) {
          return new Result(Kind.FAILED, 0, e.toString());
        }
      }
      if (attempts++ % 10 == 1) { // not the first failure: a map catching up is normal, say so only if it lasts
        log.warn("node={} bucket={} object={} cannot move yet (attempt {}): {}", self, bucket.bucket(), name,
            attempts, why);
      }
      Thread.sleep(backoff);
      backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
    }
  }

  /**
   * Sends the copy held here to {@code to} once, uncapped (get-from-neighbor: a client waits). When {@code to} has
   * it and owns it, the copy here is left for the caller to remove ({@link Result#toRemove}) once the client's wait
   * is over. Null when this target does not hold the object.
   */
  Result push(BucketProps bucket, String name, Node to) throws TransferException, IOException, InterruptedException {
    return sendOnce(bucket, name, to, BandwidthCap.NONE, true, true);
  }

  /** One attempt: null when the object is not here. */
  private Result sendOnce(BucketProps bucket, String name, Node to, BandwidthCap cap, boolean deferRemoval,
      boolean foreground) throws TransferException, IOException, InterruptedException {
    StoredObject obj = relocation.open(bucket, name);
    if (obj == null) {
      return null;
    }
    try {
      long mapVersion = cluster.snapshot().map(s -> s.map().version()).orElse(0L);
      ObjectSender.Receipt receipt = sender.send(bucket, name, obj, relocation.atime(bucket, name), to, cap,
          mapVersion, foreground);
      if (!receipt.owner()) {
        return new Result(Kind.NOT_OWNER, 0, null); // keep the copy: only an owner's receipt lets it go
      }
      Relocation.Sent sent = new Relocation.Sent(bucket, name, obj.meta());
      if (!deferRemoval) {
        relocation.removeSent(bucket, name, obj.meta());
      }
      Relocation.Sent toRemove = deferRemoval ? sent : null;
      if (receipt.outcome() != Relocation.Outcome.STORED) {
        return new Result(Kind.NOT_NEEDED, 0, null, toRemove);
      }
      stats.sent(obj.meta().size());
      return new Result(Kind.MOVED, obj.meta().size(), null, toRemove);
    } finally {
      obj.channel().close();
    }
  }
}
