package io.granary.target.s3;

import io.granary.clustermap.Node;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.hrw.PlacementKey;
import io.granary.common.auth.ClusterSigner;
import io.granary.common.error.ServiceUnavailableException;
import io.granary.common.http.client.UpstreamPool;
import io.granary.common.membership.ClusterMetadataHolder;

/**
 * Where CopyObject reads its source: this target's own disk when it owns the source key, otherwise the owning
 * target, through signed intra-cluster GETs on pooled connections.
 */
public final class CopySource {
  private final ClusterMetadataHolder cluster;
  private final UpstreamPool pool;
  private final ClusterSigner signer; // null without a cluster secret

  public CopySource(ClusterMetadataHolder cluster, UpstreamPool pool, ClusterSigner signer) {
    this.cluster = cluster;
    this.pool = pool;
    this.signer = signer;
  }

  /** The owner of the source key; 503 when it is offline or there is none. */
  Node owner(BucketProps bucket, String key) {
    Node n = cluster.require().placement().owner(PlacementKey.digest(bucket.bucket(), key)).orElseThrow(() ->
        new ServiceUnavailableException(ServiceUnavailableException.NO_TARGETS, "no target owns the copy source", 5));
    if (n.state() == NodeState.OFFLINE) {
      throw new ServiceUnavailableException(ServiceUnavailableException.TARGET_OFFLINE,
          "target " + n.id() + " holding the copy source is offline", 5);
    }
    return n;
  }

  boolean local(Node owner) {
    return owner.id().equals(cluster.nodeId());
  }

  UpstreamPool pool() {
    return pool;
  }

  ClusterSigner signer() {
    return signer;
  }
}
