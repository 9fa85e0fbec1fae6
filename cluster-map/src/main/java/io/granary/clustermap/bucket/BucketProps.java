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
 * @param protection mirroring, erasure coding and warm validation (docs/protection.md). Metadata written before
 *     protection existed has none: one copy, as then
 */
public record BucketProps(Bucket bucket, String id, ChecksumType checksum, Instant created, RemoteBackend backend,
    Freshness freshness, CannedAcl acl, Protection protection) {
  public BucketProps {
    acl = acl == null ? CannedAcl.PRIVATE : acl;
    protection = protection == null ? Protection.NONE : protection;
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

  /** An unprotected bucket (one copy). */
  public BucketProps(Bucket bucket, String id, ChecksumType checksum, Instant created, RemoteBackend backend,
      Freshness freshness, CannedAcl acl) {
    this(bucket, id, checksum, created, backend, freshness, acl, Protection.NONE);
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
    return new BucketProps(bucket, id, checksum, created, backend, freshness, acl, protection);
  }

  /** The same bucket with another protection. */
  public BucketProps withProtection(Protection protection) {
    return new BucketProps(bucket, id, checksum, created, backend, freshness, acl, protection);
  }

  /** Whether objects come from a remote store (and may be evicted, revalidated and fetched cold). */
  public boolean isRemote() {
    return bucket.provider() != Provider.AIS;
  }
}
