package io.granary.clustermap.bucket;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * An immutable, versioned snapshot of all buckets (AIStore's BMD). The primary proxy is its single writer; like
 * the cluster map it is pushed to every node in version order.
 *
 * @param version starts at 1 and grows by one per change
 * @param uuid the cluster uuid this metadata belongs to
 * @param buckets bucket properties by {@link Bucket#key()}
 */
public record BucketMetadata(long version, String uuid, Map<String, BucketProps> buckets) {
  public BucketMetadata {
    Objects.requireNonNull(uuid, "uuid");
    if (version < 1) {
      throw new IllegalArgumentException("bucket metadata version must be >= 1, got " + version);
    }
    buckets = Collections.unmodifiableMap(new TreeMap<>(buckets == null ? Map.of() : buckets));
    buckets.forEach((k, v) -> {
      if (!k.equals(v.bucket().key())) {
        throw new IllegalArgumentException("bucket entry '" + k + "' does not match " + v.bucket());
      }
    });
  }

  /** The empty bucket metadata of a new cluster. */
  public static BucketMetadata empty(String uuid) {
    return new BucketMetadata(1, uuid, Map.of());
  }

  public Optional<BucketProps> get(Bucket bucket) {
    return Optional.ofNullable(buckets.get(bucket.key()));
  }

  /**
   * The bucket S3 addresses by {@code name} alone: the local one if there is one, else the registered remote one
   * (names are unique across providers, so there is at most one of those).
   */
  public Optional<BucketProps> named(String name) {
    for (Provider p : Provider.values()) {
      BucketProps found = buckets.get(new Bucket(p, name).key());
      if (found != null) {
        return Optional.of(found);
      }
    }
    return Optional.empty();
  }

  /** A new version with {@code props} added or replaced. */
  public BucketMetadata with(BucketProps props) {
    Map<String, BucketProps> b = new TreeMap<>(buckets);
    b.put(props.bucket().key(), props);
    return new BucketMetadata(version + 1, uuid, b);
  }

  /** A new version without {@code bucket}. */
  public BucketMetadata without(Bucket bucket) {
    Map<String, BucketProps> b = new TreeMap<>(buckets);
    b.remove(bucket.key());
    return new BucketMetadata(version + 1, uuid, b);
  }
}
