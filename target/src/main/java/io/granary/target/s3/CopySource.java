package io.granary.target.s3;

import io.granary.clustermap.Node;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.InvalidNameException;
import io.granary.clustermap.bucket.ObjectName;
import io.granary.common.auth.ClusterSigner;
import io.granary.common.error.BucketNotFoundException;
import io.granary.common.http.RequestPath;
import io.granary.common.http.client.UpstreamPool;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.membership.ObjectOwner;
import io.granary.common.s3.S3ApiException;

/**
 * Where CopyObject and UploadPartCopy read their source: this target's own disk when it owns the source key,
 * otherwise the owning target, through signed intra-cluster GETs on pooled connections.
 */
public final class CopySource {
  static final String HEADER = "x-amz-copy-source";

  private final ClusterMetadataHolder cluster;
  private final UpstreamPool pool;
  private final ClusterSigner signer; // null without a cluster secret

  public CopySource(ClusterMetadataHolder cluster, UpstreamPool pool, ClusterSigner signer) {
    this.cluster = cluster;
    this.pool = pool;
    this.signer = signer;
  }

  /** A copy source as named by {@code x-amz-copy-source}. */
  record Key(String bucket, String key) {
  }

  /**
   * The copy source in {@code x-amz-copy-source}: URL-decoded, leading slash optional, a versionId other than null
   * refused (400 InvalidArgument).
   */
  static Key parse(String header) {
    String s = header.trim();
    int q = s.indexOf('?');
    if (q >= 0) {
      String query = s.substring(q + 1);
      if (!query.equals("versionId=null") && !query.isEmpty()) {
        throw S3ApiException.invalidArgument("versioned copy sources are not supported", HEADER, header);
      }
      s = s.substring(0, q);
    }
    s = RequestPath.decode(s.startsWith("/") ? s.substring(1) : s);
    int slash = s.indexOf('/');
    if (slash <= 0 || slash == s.length() - 1) {
      throw S3ApiException.invalidArgument("x-amz-copy-source must be /BUCKET/KEY", HEADER, header);
    }
    String key = s.substring(slash + 1);
    try {
      ObjectName.requireValid(key);
    } catch (InvalidNameException e) {
      throw S3ApiException.invalidArgument(e.getMessage(), HEADER, header);
    }
    return new Key(s.substring(0, slash), key);
  }

  /** The source bucket: S3 names it by name alone, so it may be a registered remote bucket; 404 NoSuchBucket. */
  BucketProps bucket(String name) {
    return cluster.require().buckets().named(name).orElseThrow(() -> new BucketNotFoundException(name));
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
