package io.granary.common.s3;

import io.granary.clustermap.bucket.BucketName;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.InvalidNameException;
import io.granary.common.error.BucketNotFoundException;
import io.granary.common.membership.ClusterMetadataHolder;
import io.netty.handler.codec.http.HttpResponseStatus;

/** Buckets as S3 names them: by name alone, whichever node (a proxy, or a target serving a read itself) asks. */
public final class S3Buckets {
  private S3Buckets() {}

  /** The local bucket named {@code name} if there is one, else a registered remote one; 400 or 404 otherwise. */
  public static BucketProps resolve(ClusterMetadataHolder cluster, String name) {
    try {
      BucketName.requireValid(name);
    } catch (InvalidNameException e) {
      throw new S3ApiException(HttpResponseStatus.BAD_REQUEST, "InvalidBucketName", e.getMessage());
    }
    return cluster.require().buckets().named(name).orElseThrow(() -> new BucketNotFoundException(name));
  }
}
