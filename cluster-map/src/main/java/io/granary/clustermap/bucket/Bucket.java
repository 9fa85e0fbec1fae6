package io.granary.clustermap.bucket;

import java.util.Objects;

/**
 * A bucket's identity: provider plus name. Two buckets with the same name under different providers are
 * different buckets.
 */
public record Bucket(Provider provider, String name) {
  public Bucket {
    Objects.requireNonNull(provider, "provider");
    BucketName.requireValid(name);
  }

  public static Bucket local(String name) {
    return new Bucket(Provider.AIS, name);
  }

  /** The key that names this bucket in bucket metadata and in per-target stores: {@code provider/name}. */
  public String key() {
    return provider.wireName() + "/" + name;
  }

  @Override
  public String toString() {
    return provider.scheme() + "://" + name;
  }
}
