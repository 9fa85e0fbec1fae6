package io.granary.clustermap.bucket;

import java.time.Instant;
import java.util.Objects;

/**
 * A bucket and its properties, as recorded in {@link BucketMetadata}.
 *
 * @param bucket provider and name
 * @param id unique id of this incarnation of the bucket; a bucket deleted and created again gets a new id
 * @param checksum the checksum computed for every object written to the bucket
 * @param created when the bucket was created
 */
public record BucketProps(Bucket bucket, String id, ChecksumType checksum, Instant created) {
  public BucketProps {
    Objects.requireNonNull(bucket, "bucket");
    Objects.requireNonNull(id, "id");
    checksum = checksum == null ? ChecksumType.XXHASH64 : checksum;
    created = created == null ? Instant.EPOCH : created;
  }
}
