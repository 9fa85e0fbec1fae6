package io.granary.proxy.membership;

import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.Node;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.BucketMetadata;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.Freshness;
import io.granary.clustermap.bucket.RemoteBackend;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.common.error.BadRequestException;
import io.granary.common.error.BucketNotFoundException;
import io.granary.common.error.ConflictException;
import io.granary.common.error.RouteNotFoundException;
import io.granary.common.membership.ClusterMetadata;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.membership.NodeRegistration;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.util.HexFormat;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The primary proxy's single-writer authority over cluster metadata. Every change makes a new version, is
 * persisted through the local {@link ClusterMetadataHolder}, then handed to the {@link MetadataPusher}. Methods
 * are synchronized (changes are rare and small) and block on disk: call them off the event loop.
 */
public final class ClusterAuthority {
  private static final Logger log = LoggerFactory.getLogger(ClusterAuthority.class);
  private static final SecureRandom RANDOM = new SecureRandom();

  private final ClusterMetadataHolder holder;
  private final MetadataPusher pusher;
  private final Clock clock;

  public ClusterAuthority(ClusterMetadataHolder holder, MetadataPusher pusher, Clock clock) {
    this.holder = holder;
    this.pusher = pusher;
    this.clock = clock;
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
    Node existing = map.node(reg.id()).orElse(null);
    Node next;
    try {
      if (existing == null) {
        next = new Node(reg.id(), reg.role(), reg.url(), NodeState.ACTIVE, reg.weight());
      } else {
        if (existing.role() != reg.role()) {
          throw new ConflictException(ConflictException.INVALID_STATE,
              "node id " + reg.id() + " is already a " + existing.role().wireName());
        }
        if (existing.state() == NodeState.DECOMMISSIONED) {
          throw new ConflictException(ConflictException.INVALID_STATE,
              "node " + reg.id() + " was decommissioned and cannot rejoin under the same id");
        }
        NodeState state = existing.state() == NodeState.OFFLINE ? NodeState.ACTIVE : existing.state();
        next = new Node(reg.id(), reg.role(), reg.url(), state, reg.weight() > 0 ? reg.weight() : existing.weight());
      }
    } catch (IllegalArgumentException e) {
      throw BadRequestException.invalidArgument(e.getMessage());
    }
    if (next.equals(existing)) {
      pusher.push(md); // make sure the (re)joining node gets everything
      return md;
    }
    log.info("node={} {} {} {} at {}", holder.nodeId(), existing == null ? "added" : "refreshed",
        reg.role().wireName(), reg.id(), reg.url());
    return publish(new ClusterMetadata(map.withNode(next), md.buckets()));
  }

  /** Sets a node's state as an operator asks: active (from maintenance), maintenance or decommissioned. */
  public synchronized ClusterMetadata setState(String id, NodeState state) {
    ClusterMetadata md = holder.require().metadata();
    Node n = md.map().node(id).orElseThrow(() -> new RouteNotFoundException("/v1/cluster/nodes/" + id));
    if (id.equals(md.map().primary())) {
      throw new ConflictException(ConflictException.INVALID_STATE, "the primary's state cannot be changed");
    }
    if (state == NodeState.OFFLINE) {
      throw new ConflictException(ConflictException.INVALID_STATE,
          "offline is set by health checks, not by operators; use maintenance");
    }
    if (n.state() == NodeState.DECOMMISSIONED) {
      throw new ConflictException(ConflictException.INVALID_STATE, "node " + id + " is decommissioned");
    }
    if (state == NodeState.ACTIVE && n.state() == NodeState.OFFLINE) {
      throw new ConflictException(ConflictException.INVALID_STATE,
          "node " + id + " is offline; it becomes active when it answers health checks again");
    }
    if (n.state() == state) {
      return md;
    }
    log.info("node={} {} {} -> {}", holder.nodeId(), id, n.state().wireName(), state.wireName());
    return publish(new ClusterMetadata(md.map().withNode(n.withState(state)), md.buckets()));
  }

  /** Health checks: a silent node goes offline (keeping its HRW place); an answering offline node comes back. */
  public synchronized void healthChanged(String id, boolean healthy) {
    ClusterMetadata md = holder.require().metadata();
    Node n = md.map().node(id).orElse(null);
    if (n == null) {
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
  public synchronized ClusterMetadata createBucket(Bucket bucket, ChecksumType checksum, RemoteBackend backend,
      Freshness freshness) {
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
        freshness);
    log.info("node={} bucket={} {} (checksum {})", holder.nodeId(), bucket, props.isRemote()
        ? "registered with endpoint " + (backend == null || backend.endpoint() == null ? "default" : backend.endpoint())
        : "created", props.checksum().wireName());
    return publish(new ClusterMetadata(md.map(), md.buckets().with(props)));
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

  private ClusterMetadata publish(ClusterMetadata md) {
    holder.apply(md);
    pusher.push(md);
    return md;
  }
}
