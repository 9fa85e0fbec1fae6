package io.granary.clustermap.bucket;

import io.granary.clustermap.acl.CannedAcl;
import java.time.Instant;
import java.util.Objects;

/**
 * A bucket and its properties, as recorded in {@link BucketMetadata}.
 *
 * @param bucket provider and name
 * @param id unique id of this incarnation of the bucket; a bucket deleted and created again gets a new id
 * @param checksum the checksum computed for every object written to the bucket
 * @param created when the bucket was created
 * @param backend for a remote bucket ({@code s3://}, {@code gs://}): where it lives; null for a local bucket
 * @param freshness for a remote bucket: how cached objects are revalidated; null for a local bucket
 * @param acl the bucket's canned ACL; {@code public-read} lets unsigned requests list it. Metadata written before
 *     ACLs existed has none: private
 */
public record BucketProps(Bucket bucket, String id, ChecksumType checksum, Instant created, RemoteBackend backend,
    Freshness freshness, CannedAcl acl) {
  public BucketProps {
    acl = acl == null ? CannedAcl.PRIVATE : acl;
    Objects.requireNonNull(bucket, "bucket");
    Objects.requireNonNull(id, "id");
    checksum = checksum == null ? ChecksumType.XXHASH64 : checksum;
    created = created == null ? Instant.EPOCH : created;
    if (bucket.provider() == Provider.AIS) {
      if (backend != null || freshness != null) {
        throw new IllegalArgumentException("local bucket " + bucket + " cannot have a remote backend");
      }
    } else {
      backend = backend == null ? new RemoteBackend(null, null, false, null, null, false) : backend;
      freshness = freshness == null ? Freshness.DEFAULT : freshness;
    }
  }

  /** A private bucket. */
  public BucketProps(Bucket bucket, String id, ChecksumType checksum, Instant created, RemoteBackend backend,
      Freshness freshness) {
    this(bucket, id, checksum, created, backend, freshness, CannedAcl.PRIVATE);
  }

  /** A local bucket. */
  public BucketProps(Bucket bucket, String id, ChecksumType checksum, Instant created) {
    this(bucket, id, checksum, created, null, null);
  }

  /** The same bucket with another ACL. */
  public BucketProps withAcl(CannedAcl acl) {
    return new BucketProps(bucket, id, checksum, created, backend, freshness, acl);
  }

  /** Whether objects come from a remote store (and may be evicted, revalidated and fetched cold). */
  public boolean isRemote() {
    return bucket.provider() != Provider.AIS;
  }
}
