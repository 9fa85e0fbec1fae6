package io.granary.common.membership;

import io.granary.clustermap.Node;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.hrw.PlacementKey;
import io.granary.common.error.ServiceUnavailableException;

/**
 * "The owner of this object, or 503 with Retry-After": the one rule every path that sends an object request to a
 * target follows (native redirects, the S3 relay, CopyObject's source). An owner that cannot answer now (offline,
 * or suspended for a short maintenance) keeps its place: its objects are never looked for elsewhere, which would
 * answer a wrong 404 or write a misplaced copy.
 */
public final class ObjectOwner {
  /** Seconds a client is asked to wait before retrying an object whose owner cannot answer now. */
  public static final int RETRY_SECONDS = 5;

  private ObjectOwner() {}

  /**
   * Where a read (GET, HEAD) of {@code name} goes: its owner; or, when the owner cannot answer now and the bucket is
   * erasure coded, the first target after it in HRW order that can (it holds slice 0, and rebuilds the object for
   * the read from any D slices: docs/protection.md). Otherwise as {@link #require}.
   */
  public static Node forRead(ClusterMetadataHolder.Snapshot s, io.granary.clustermap.bucket.BucketProps bucket,
      String name) {
    if (bucket.protection().ecData() > 0) {
      long digest = PlacementKey.digest(bucket.bucket(), name);
      java.util.List<Node> ranked = s.placement().ranked(digest,
          bucket.protection().ecData() + bucket.protection().ecParity() + 1);
      if (!ranked.isEmpty() && !answers(ranked.get(0))) {
        for (Node n : ranked) {
          if (answers(n)) {
            return n;
          }
        }
      }
    }
    return require(s, bucket.bucket(), name);
  }

  private static boolean answers(Node n) {
    return n.state() != NodeState.OFFLINE && n.state() != NodeState.SUSPENDED;
  }

  /** The owner of {@code name} under {@code s}'s map; 503 when there is none or it cannot answer now. */
  public static Node require(ClusterMetadataHolder.Snapshot s, Bucket bucket, String name) {
    Node owner = s.placement().owner(PlacementKey.digest(bucket, name)).orElseThrow(() ->
        new ServiceUnavailableException(ServiceUnavailableException.NO_TARGETS,
            "no target is in the cluster yet (map v" + s.map().version() + ")", RETRY_SECONDS));
    if (owner.state() == NodeState.OFFLINE) {
      throw new ServiceUnavailableException(ServiceUnavailableException.TARGET_OFFLINE, "target " + owner.id()
          + " that owns '" + name + "' is offline; retry when it is back", RETRY_SECONDS);
    }
    if (owner.state() == NodeState.SUSPENDED) {
      throw new ServiceUnavailableException(ServiceUnavailableException.TARGET_OFFLINE, "target " + owner.id()
          + " that owns '" + name + "' is in maintenance (without rebalance); retry when it is back", RETRY_SECONDS);
    }
    return owner;
  }
}
