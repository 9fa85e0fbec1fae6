package io.granary.target.s3;

import io.granary.clustermap.Node;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.common.auth.ClusterSigner;
import io.granary.common.http.client.UpstreamPool;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.membership.ObjectOwner;

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

  /** The owner of the source key; 503 when it cannot answer now or there is none. */
  Node owner(BucketProps bucket, String key) {
    return ObjectOwner.require(cluster.require(), bucket.bucket(), key);
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
