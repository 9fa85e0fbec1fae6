package io.granary.proxy.membership;

import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.Node;
import io.granary.clustermap.NodeRole;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.Rebalance;
import io.granary.clustermap.acl.CannedAcl;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.BucketMetadata;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.Freshness;
import io.granary.clustermap.bucket.Protection;
import io.granary.clustermap.bucket.RemoteBackend;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.common.error.BadRequestException;
import io.granary.common.error.BucketNotFoundException;
import io.granary.common.error.ConflictException;
import io.granary.common.error.NodeNotFoundException;
import io.granary.common.error.RouteNotFoundException;
import io.granary.common.error.ServiceUnavailableException;
import io.granary.common.membership.ClusterMetadata;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.membership.NodeRegistration;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The primary proxy's single-writer authority over cluster metadata. Every change makes a new version, is
 * persisted through the local {@link ClusterMetadataHolder}, then handed to the {@link MetadataPusher}. Methods
 * are synchronized (changes are rare and small), so concurrent changes are applied one after the other, each
 * checked against the state the previous one left; they block on disk: call them off the event loop.
 *
 * <p>A change of placement (a target joins, leaves placement, returns, or changes weight) starts a new
 * {@link Rebalance} in the very version that makes it, so every target learns of the new owners and of the need to
 * move objects at once.
 *
 * <p>Under Kubernetes Lease election an authority lives for one term: {@link #takeOver} starts it from the metadata
 * the previous primary recorded, each change is recorded in the {@link MetadataJournal} before it is applied or
 * pushed, and {@link #fence()} ends it: every later change is refused with 503 {@code NotPrimary}.
 */
public final class ClusterAuthority {
  private static final Logger log = LoggerFactory.getLogger(ClusterAuthority.class);
  private static final SecureRandom RANDOM = new SecureRandom();

  private final ClusterMetadataHolder holder;
  private final MetadataPusher pusher;
  private final Clock clock;
  private final LeaveGuard leaveGuard;
  private final MetadataJournal journal;
  private volatile boolean fenced;

  public ClusterAuthority(ClusterMetadataHolder holder, MetadataPusher pusher, Clock clock) {
    this(holder, pusher, clock, LeaveGuard.NONE);
  }

  /** @param leaveGuard refuses changes that take targets out of placement when the rest cannot hold their data */
  public ClusterAuthority(ClusterMetadataHolder holder, MetadataPusher pusher, Clock clock, LeaveGuard leaveGuard) {
    this(holder, pusher, clock, leaveGuard, MetadataJournal.NONE);
  }

  /** @param journal records every version before it is applied and pushed (the ConfigMap under Lease election) */
  public ClusterAuthority(ClusterMetadataHolder holder, MetadataPusher pusher, Clock clock, LeaveGuard leaveGuard,
      MetadataJournal journal) {
    this.holder = holder;
    this.pusher = pusher;
    this.clock = clock;
    this.leaveGuard = leaveGuard;
    this.journal = journal;
  }

  /**
   * Makes this proxy the primary of the next epoch (Lease election): resumes from {@code recorded}, the metadata
   * the previous primary recorded (else this node's own copy, else a new cluster), names itself primary in a new
   * map version of epoch one above it, records and pushes that. Nodes then refuse the older epoch's pushes.
   *
   * @throws io.granary.common.error.ServiceUnavailableException {@code NotPrimary} when the record conflicts:
   *     another proxy took over meanwhile
   */
  public synchronized ClusterMetadata takeOver(Node self, ClusterMetadata recorded) {
    ClusterMetadata md = recorded != null ? recorded
        : holder.snapshot().map(ClusterMetadataHolder.Snapshot::metadata).orElse(null);
    Node me = self.withState(NodeState.ACTIVE);
    if (md == null) {
      String uuid = UUID.randomUUID().toString();
      ClusterMap first = ClusterMap.bootstrap(uuid, me, Instant.now(clock)).withPrimary(me, 1);
      md = new ClusterMetadata(first, BucketMetadata.empty(uuid));
      log.info("node={} created cluster {} as primary of epoch 1", self.id(), uuid);
    } else {
      ClusterMap before = md.map();
      md = new ClusterMetadata(before.withPrimary(me, before.epoch() + 1), md.buckets());
      log.info("node={} primary of epoch {} (after {} of epoch {}): resumed cluster {} at map v{}, bucket metadata v{}",
          self.id(), md.map().epoch(), before.primary(), before.epoch(), before.uuid(), md.map().version(),
          md.buckets().version());
    }
    return publish(md);
  }

  /** Ends this authority's term: it makes no more changes (503 {@code NotPrimary}). */
  public void fence() {
    fenced = true;
  }

  /** Whether {@link #fence()} ended this authority's term. */
  public boolean fenced() {
    return fenced;
  }

  private void requireTerm() {
    if (fenced) {
      throw new ServiceUnavailableException(ServiceUnavailableException.NOT_PRIMARY, "proxy " + holder.nodeId()
          + " is no longer the primary; it writes no cluster metadata (retry: the request goes to the new one)", 1);
    }
  }

  /**
   * Makes this proxy the primary: creates a new cluster on first start, or resumes the persisted one (updating
   * this proxy's URL if it moved), then pushes the metadata to every node.
   */
  public synchronized ClusterMetadata bootstrap(Node self) {
    ClusterMetadata md = holder.snapshot().map(ClusterMetadataHolder.Snapshot::metadata).orElse(null);
    if (md == null) {
      String uuid = UUID.randomUUID().toString();
      md = new ClusterMetadata(ClusterMap.bootstrap(uuid, self, Instant.now(clock)), BucketMetadata.empty(uuid));
      log.info("node={} created cluster {}", self.id(), uuid);
    } else {
      ClusterMap map = md.map();
      if (!map.primary().equals(self.id())) {
        throw new IllegalStateException("persisted map names " + map.primary() + " as primary, not " + self.id()
            + "; start this proxy with --primary URL-of-" + map.primary());
      }
      Node cur = map.proxies().get(self.id());
      if (!cur.url().equals(self.url()) || cur.state() != NodeState.ACTIVE) {
        md = new ClusterMetadata(map.withNode(cur.withUrl(self.url()).withState(NodeState.ACTIVE)), md.buckets());
      }
      log.info("node={} resumed cluster {} at map v{}", self.id(), map.uuid(), md.map().version());
    }
    return publish(md);
  }

  /** Adds or refreshes a node; a node that comes back after being offline is active again. */
  public synchronized ClusterMetadata join(NodeRegistration reg) {
    if (reg.role() == null || reg.url() == null || reg.id() == null) {
      throw BadRequestException.invalidArgument("registration needs id, role and url");
    }
    if (reg.weight() < 0 || Double.isNaN(reg.weight()) || Double.isInfinite(reg.weight())) {
      throw BadRequestException.invalidArgument("weight must be a positive number (or absent), got " + reg.weight());
    }
    ClusterMetadata md = holder.require().metadata();
    ClusterMap map = md.map();
    if (map.retired().contains(reg.id())) {
      throw new ConflictException(ConflictException.NODE_DECOMMISSIONED,
          "node " + reg.id() + " was decommissioned and cannot rejoin under the same id");
    }
    Node existing = map.node(reg.id()).orElse(null);
    Node next;
    try {
      if (existing == null) {
        // A new target joins out of placement until it holds the metadata (see NodeState): no client is sent to a
        // target that cannot place the request yet.
        NodeState state = reg.role() == NodeRole.TARGET && reg.mapVersion() == 0 ? NodeState.JOINING
            : NodeState.ACTIVE;
        next = new Node(reg.id(), reg.role(), reg.url(), state, reg.weight());
      } else {
        if (existing.role() != reg.role()) {
          throw new ConflictException(ConflictException.INVALID_STATE,
              "node id " + reg.id() + " is already a " + existing.role().wireName());
        }
        NodeState state = existing.state() == NodeState.OFFLINE ? NodeState.ACTIVE
            : existing.state() == NodeState.JOINING && holdsCurrentMetadata(reg, md) ? NodeState.ACTIVE
            : existing.state();
        next = new Node(reg.id(), reg.role(), reg.url(), state, reg.weight() > 0 ? reg.weight() : existing.weight());
      }
    } catch (IllegalArgumentException e) {
      throw BadRequestException.invalidArgument(e.getMessage());
    }
    if (next.equals(existing)) {
      requireTerm();
      pusher.push(md); // make sure the (re)joining node gets everything
      return md;
    }
    String role = reg.role().wireName();
    if (next.state() == NodeState.JOINING && existing == null) {
      log.info("node={} {} {} joining at {}: active once it holds the metadata", holder.nodeId(), role, reg.id(),
          reg.url());
    } else if (existing != null && existing.state() == NodeState.JOINING && next.state() == NodeState.ACTIVE) {
      log.info("node={} {} {} holds the metadata: active at {}", holder.nodeId(), role, reg.id(), reg.url());
    } else {
      log.info("node={} {} {} {} at {}", holder.nodeId(), existing == null ? "added" : "refreshed", role, reg.id(),
          reg.url());
    }
    return publish(new ClusterMetadata(map.withNode(next), md.buckets()));
  }

  /**
   * Whether a joining target may be placed: it holds a map, and bucket metadata at least as new as ours when it
   * says which it holds. A bucket created while it joins (metasync is still carrying it there) keeps it joining
   * until it has it, so no client is routed to a target that would answer BucketNotFound.
   */
  private static boolean holdsCurrentMetadata(NodeRegistration reg, ClusterMetadata md) {
    return reg.mapVersion() > 0 && (reg.bucketsVersion() == 0 || reg.bucketsVersion() >= md.buckets().version());
  }

  /**
   * Sets a node's state as an operator asks: active (from maintenance, suspension or decommissioning), suspended
   * (maintenance without rebalance), maintenance (with rebalance) or decommissioning. Taking a target out of placement
   * is refused with 409 when no target would stay in placement, or when the others cannot hold its data
   * ({@link LeaveGuard}). A proxy being decommissioned leaves the map at once: it holds no data.
   */
  public synchronized ClusterMetadata setState(String id, NodeState state) {
    ClusterMetadata md = holder.require().metadata();
    Node n = md.map().node(id).orElseThrow(() -> new NodeNotFoundException(id));
    if (id.equals(md.map().primary())) {
      throw new ConflictException(ConflictException.INVALID_STATE, "the primary's state cannot be changed");
    }
    if (state == NodeState.OFFLINE) {
      throw new ConflictException(ConflictException.INVALID_STATE,
          "offline is set by health checks, not by operators; use maintenance");
    }
    if (state == NodeState.JOINING) {
      throw new ConflictException(ConflictException.INVALID_STATE,
          "joining is set by a new target's registration, not by operators");
    }
    if (state == NodeState.ACTIVE && n.state() == NodeState.OFFLINE) {
      throw new ConflictException(ConflictException.INVALID_STATE,
          "node " + id + " is offline; it becomes active when it answers health checks again");
    }
    if (state == NodeState.SUSPENDED && !n.state().inPlacement()) {
      throw new ConflictException(ConflictException.INVALID_STATE, "node " + id + " is " + n.state().wireName()
          + ": out of placement, its objects have moved; maintenance without rebalance is for a placed target");
    }
    if (n.state() == state) {
      return md;
    }
    if (n.role() == NodeRole.PROXY && state == NodeState.DECOMMISSIONING) {
      // Not retired: it held no data, so a proxy pod that comes back at the same ordinal (a scale-up) may rejoin.
      log.info("node={} proxy {} decommissioned: it leaves the map", holder.nodeId(), id);
      return publish(new ClusterMetadata(md.map().without(id), md.buckets()));
    }
    ClusterMap next = md.map().withNode(n.withState(state));
    if (n.role() == NodeRole.TARGET && n.state().inPlacement() && !state.inPlacement()) {
      if (next.placement().size() == 0) {
        throw new ConflictException(ConflictException.INVALID_STATE, "target " + id
            + " is the last target in placement; its objects would have nowhere to go");
      }
      leaveGuard.admit(md.map(), next);
    }
    log.info("node={} {} {} -> {}", holder.nodeId(), id, n.state().wireName(), state.wireName());
    return publish(new ClusterMetadata(next, md.buckets()));
  }

  /** Sets a target's placement weight (relative capacity); objects move by the rebalance the change starts. */
  public synchronized ClusterMetadata setWeight(String id, double weight) {
    ClusterMetadata md = holder.require().metadata();
    Node n = md.map().targets().get(id);
    if (n == null) {
      throw new NodeNotFoundException(id);
    }
    if (!(weight > 0) || Double.isInfinite(weight)) {
      throw BadRequestException.invalidArgument("weight must be a positive number, got " + weight);
    }
    if (n.weight() == weight) {
      return md;
    }
    log.info("node={} {} weight {} -> {}", holder.nodeId(), id, n.weight(), weight);
    return publish(new ClusterMetadata(md.map().withNode(n.withWeight(weight)), md.buckets()));
  }

  /** Starts a rebalance by hand (the map is unchanged otherwise): every target checks what it holds again. */
  public synchronized ClusterMetadata startRebalance() {
    ClusterMetadata md = holder.require().metadata();
    Rebalance r = Rebalance.next(md.map().rebalance(), clock.instant());
    log.info("node={} job={} rebalance started by request", holder.nodeId(), r.jobId());
    return publish(new ClusterMetadata(md.map().withRebalance(r), md.buckets()));
  }

  /**
   * Aborts rebalance {@code id}: targets stop moving objects. 404 for a rebalance the cluster never had; 409 when it
   * is not the latest or not running.
   */
  public synchronized ClusterMetadata abortRebalance(long id) {
    ClusterMetadata md = holder.require().metadata();
    Rebalance r = requireRebalance(md.map(), id);
    if (!r.running()) {
      throw new ConflictException("JobNotRunning", "rebalance " + r.jobId() + " is already " + r.state().wireName());
    }
    log.info("node={} job={} rebalance aborted by request", holder.nodeId(), r.jobId());
    return publish(new ClusterMetadata(md.map().withRebalance(r.ended(Rebalance.State.ABORTED, clock.instant())),
        md.buckets()));
  }

  /**
   * Ends rebalance {@code id} once every target has reported that it holds nothing misplaced; the targets being
   * decommissioned among {@code drained} (they hold no objects at all) leave the map. Nothing when {@code id} is not
   * the running rebalance any more (a newer one superseded it, or it was aborted).
   */
  public synchronized ClusterMetadata finishRebalance(long id, Set<String> drained) {
    ClusterMetadata md = holder.require().metadata();
    Rebalance r = md.map().rebalance();
    if (r == null || r.id() != id || !r.running()) {
      return md;
    }
    ClusterMap next = md.map().withRebalance(r.ended(Rebalance.State.FINISHED, clock.instant()));
    for (String t : drained) {
      Node n = next.targets().get(t);
      if (n != null && n.state() == NodeState.DECOMMISSIONING) {
        next = next.retire(t);
        log.info("node={} target {} decommissioned: its objects have moved, it leaves the map", holder.nodeId(), t);
      }
    }
    log.info("node={} job={} rebalance finished", holder.nodeId(), r.jobId());
    return publish(new ClusterMetadata(next, md.buckets()));
  }

  /**
   * Records that rebalance {@code id} failed (every target walked everything, some objects could not move) with
   * {@code error}, and when the primary retries it ({@code nextAttempt}; null: not automatically). The map stays
   * unsettled meanwhile. Nothing when {@code id} is not the running rebalance any more, or this is recorded already.
   */
  public synchronized ClusterMetadata rebalanceFailed(long id, String error, Instant nextAttempt) {
    ClusterMetadata md = holder.require().metadata();
    Rebalance r = md.map().rebalance();
    if (r == null || r.id() != id || !r.running()
        || (Objects.equals(r.lastError(), error) && Objects.equals(r.nextAttempt(), nextAttempt))) {
      return md;
    }
    return publish(new ClusterMetadata(md.map().withRebalance(r.failed(error, nextAttempt)), md.buckets()));
  }

  /**
   * Starts the retry of failed rebalance {@code id} as the next rebalance, under the current map, one attempt more.
   * Nothing when {@code id} is no longer the running rebalance with a retry scheduled: it was aborted, finished, or
   * a newer change (or an operator) started a newer one meanwhile.
   */
  public synchronized ClusterMetadata retryRebalance(long id) {
    ClusterMetadata md = holder.require().metadata();
    Rebalance r = md.map().rebalance();
    if (r == null || r.id() != id || !r.running() || r.nextAttempt() == null) {
      return md;
    }
    Rebalance next = r.retry(clock.instant());
    log.info("node={} job={} rebalance attempt {} started: retrying {} ({})", holder.nodeId(), next.jobId(),
        next.attempt(), r.jobId(), r.lastError());
    return publish(new ClusterMetadata(md.map().withRebalance(next), md.buckets()));
  }

  /**
   * Removes a dead target (its process and disks gone for good) from the map without moving its data, which is
   * impossible: its id is retired, and a rebalance among the survivors starts in the same version. The caller has
   * probed it first; this checks again against the current map ({@link RemovalCheck}: 404 unknown, 409 alive, a
   * proxy, or asked without force) and refuses with 409 to remove the last target in placement.
   */
  public synchronized ForcedRemoval removeDeadTarget(String id) {
    ClusterMetadata md = holder.require().metadata();
    Node n = RemovalCheck.require(md.map(), id, true);
    ClusterMap next = md.map().retire(id);
    if (next.placement().size() == 0) {
      throw new ConflictException(ConflictException.INVALID_STATE, "target " + id
          + " is the last target in placement; removing it would leave the cluster nowhere to place objects");
    }
    if (next.placementSignature().equals(md.map().placementSignature())) {
      // It was out of placement already: the survivors walk again anyway, so the map settles without it.
      next = next.startingRebalance(Rebalance.next(next.rebalance(), clock.instant()));
    }
    ClusterMetadata after = publish(new ClusterMetadata(next, md.buckets()));
    ForcedRemoval report = ForcedRemoval.of(n, after);
    log.warn("node={} target {} ({}) removed by force, its data not moved; job={}; lost: {}; refetched: {}",
        holder.nodeId(), id, n.state().wireName(), report.rebalance(), report.lost(), report.refetched());
    return report;
  }

  /** The latest rebalance if it is {@code id}; 404 for an id the cluster never had, 409 for a superseded one. */
  private static Rebalance requireRebalance(ClusterMap map, long id) {
    Rebalance r = map.rebalance();
    if (r == null || id > r.id() || id < 1) {
      throw new RouteNotFoundException("/v1/jobs/" + Rebalance.JOB_PREFIX + id);
    }
    if (id < r.id()) {
      throw new ConflictException("JobSuperseded", Rebalance.JOB_PREFIX + id + " was superseded by " + r.jobId());
    }
    return r;
  }

  /** Health checks: a silent node goes offline (keeping its HRW place); an answering offline node comes back. */
  public synchronized void healthChanged(String id, boolean healthy) {
    ClusterMetadata md = holder.require().metadata();
    Node n = md.map().node(id).orElse(null);
    if (n == null) {
      return;
    }
    if (!healthy && n.state() == NodeState.JOINING) {
      // It never held an object nor a place: it leaves, and registers anew if it comes back.
      log.warn("node={} target {} stopped answering before it finished joining; it leaves the map", holder.nodeId(),
          id);
      publish(new ClusterMetadata(md.map().without(id), md.buckets()));
      return;
    }
    NodeState next = n.state();
    if (!healthy && n.state() == NodeState.ACTIVE) {
      next = NodeState.OFFLINE;
    } else if (healthy && n.state() == NodeState.OFFLINE) {
      next = NodeState.ACTIVE;
    }
    if (next != n.state()) {
      log.warn("node={} {} {} is now {}", holder.nodeId(), n.role().wireName(), id, next.wireName());
      publish(new ClusterMetadata(md.map().withNode(n.withState(next)), md.buckets()));
    }
  }

  /** Adds a local bucket; 409 when its name is taken. */
  public ClusterMetadata createBucket(Bucket bucket, ChecksumType checksum) {
    return createBucket(bucket, checksum, null, null);
  }

  /**
   * Adds a bucket, local or remote (with its backend and freshness settings); 409 when its name is taken by a
   * bucket of any provider, since S3 clients name buckets without a provider.
   */
  public ClusterMetadata createBucket(Bucket bucket, ChecksumType checksum, RemoteBackend backend,
      Freshness freshness) {
    return createBucket(bucket, checksum, backend, freshness, CannedAcl.PRIVATE);
  }

  /** {@link #createBucket(Bucket, ChecksumType, RemoteBackend, Freshness)} with a canned ACL, in one version. */
  public ClusterMetadata createBucket(Bucket bucket, ChecksumType checksum, RemoteBackend backend,
      Freshness freshness, CannedAcl acl) {
    return createBucket(bucket, checksum, backend, freshness, acl, Protection.NONE);
  }

  /**
   * {@link #createBucket(Bucket, ChecksumType, RemoteBackend, Freshness, CannedAcl)} with a protection, in one
   * version; the caller has checked that the cluster can hold it ({@link Protection#checkFits}).
   */
  public synchronized ClusterMetadata createBucket(Bucket bucket, ChecksumType checksum, RemoteBackend backend,
      Freshness freshness, CannedAcl acl, Protection protection) {
    ClusterMetadata md = holder.require().metadata();
    for (BucketProps other : md.buckets().buckets().values()) {
      if (other.bucket().name().equals(bucket.name())) {
        throw new ConflictException(ConflictException.BUCKET_EXISTS, other.bucket().equals(bucket)
            ? "bucket '" + bucket + "' already exists"
            : "bucket name '" + bucket.name() + "' is taken by " + other.bucket() + "; S3 clients could not tell them apart");
      }
    }
    byte[] id = new byte[6];
    RANDOM.nextBytes(id);
    BucketProps props = new BucketProps(bucket, HexFormat.of().formatHex(id), checksum, Instant.now(clock), backend,
        freshness, acl, protection);
    ClusterMetadata next = publish(new ClusterMetadata(md.map(), md.buckets().with(props))); // logged once made
    log.info("node={} bucket={} {} (checksum {})", holder.nodeId(), bucket, props.isRemote()
        ? "registered with endpoint " + (backend == null || backend.endpoint() == null ? "default" : backend.endpoint())
        : "created", props.checksum().wireName());
    return next;
  }

  /** Replaces a bucket's canned ACL (a new metadata version; none when it is unchanged). 404 when it does not exist. */
  public synchronized ClusterMetadata setBucketAcl(Bucket bucket, CannedAcl acl) {
    ClusterMetadata md = holder.require().metadata();
    BucketProps props = md.buckets().get(bucket).orElseThrow(() -> new BucketNotFoundException(bucket.toString()));
    if (props.acl() == acl) {
      return md;
    }
    log.info("node={} bucket={} acl {} -> {}", holder.nodeId(), bucket, props.acl().wireName(), acl.wireName());
    return publish(new ClusterMetadata(md.map(), md.buckets().with(props.withAcl(acl))));
  }

  /**
   * Replaces a bucket's protection (a new metadata version; none when it is unchanged). 404 when the bucket does not
   * exist; 409 when {@code expected} is no longer its protection (another change came between the caller's checks
   * and this one, which would otherwise be lost or skip them).
   */
  public synchronized ClusterMetadata setBucketProtection(Bucket bucket, Protection expected, Protection protection) {
    ClusterMetadata md = holder.require().metadata();
    BucketProps props = md.buckets().get(bucket).orElseThrow(() -> new BucketNotFoundException(bucket.toString()));
    if (!props.protection().equals(expected)) {
      throw new ConflictException(ConflictException.CONCURRENT_CHANGE, "the properties of bucket '" + bucket
          + "' changed meanwhile; read them and try again");
    }
    if (props.protection().equals(protection)) {
      return md;
    }
    log.info("node={} bucket={} protection {}", holder.nodeId(), bucket, props.protection().diff(protection));
    return publish(new ClusterMetadata(md.map(), md.buckets().with(props.withProtection(protection))));
  }

  /** Removes a bucket from metadata; targets then drop its data. 404 when it does not exist. */
  public synchronized ClusterMetadata deleteBucket(Bucket bucket) {
    ClusterMetadata md = holder.require().metadata();
    if (md.buckets().get(bucket).isEmpty()) {
      throw new BucketNotFoundException(bucket.toString());
    }
    log.info("node={} bucket={} deleted", holder.nodeId(), bucket);
    return publish(new ClusterMetadata(md.map(), md.buckets().without(bucket)));
  }

  /**
   * Records (in the journal), persists and pushes {@code md}. When its map places objects differently from the
   * current one, a new rebalance starts in that same version.
   */
  private ClusterMetadata publish(ClusterMetadata md) {
    requireTerm();
    ClusterMap current = holder.snapshot().map(ClusterMetadataHolder.Snapshot::map).orElse(null);
    // A new term's first map changes only the primary: its placement had its rebalance in the term before.
    if (current != null && md.map().version() > current.version() && md.map().epoch() == current.epoch()
        && !md.map().placementSignature().equals(current.placementSignature())) {
      Rebalance r = Rebalance.next(md.map().rebalance(), clock.instant());
      md = new ClusterMetadata(md.map().startingRebalance(r), md.buckets());
      log.info("node={} job={} rebalance started: placement {} -> {}", holder.nodeId(), r.jobId(),
          current.placementSignature(), md.map().placementSignature());
    }
    try {
      journal.record(md);
    } catch (ServiceUnavailableException e) {
      if (ServiceUnavailableException.NOT_PRIMARY.equals(e.code())) {
        fenced = true; // another proxy recorded a newer term: stop at once, before applying or pushing anything
        log.warn("node={} deposed: recording map v{} failed: {}", holder.nodeId(), md.map().version(),
            e.getMessage());
      }
      throw e;
    }
    holder.apply(md);
    pusher.push(md);
    return md;
  }
}
