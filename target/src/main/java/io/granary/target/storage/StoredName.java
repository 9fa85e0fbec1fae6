package io.granary.target.storage;

import io.granary.clustermap.bucket.BucketProps;
import java.util.Map;

/**
 * An object named by its metadata key ({@code provider/bucket/bucketId/name}, see {@link ObjectStore#bucketPrefix})
 * in a bucket incarnation the cluster still has. Walks over metadata find objects this way.
 */
public record StoredName(BucketProps bucket, String name) {

  /**
   * The object a metadata key names, or null when its bucket is gone or was re-created (its data goes with it) or
   * the key is not an object key.
   *
   * @param buckets the current buckets by {@code provider/bucket} key
   */
  public static StoredName resolve(String key, Map<String, BucketProps> buckets) {
    int p = key.indexOf('/');
    int b = p < 0 ? -1 : key.indexOf('/', p + 1);
    int i = b < 0 ? -1 : key.indexOf('/', b + 1);
    if (i < 0) {
      return null;
    }
    BucketProps props = buckets.get(key.substring(0, b));
    if (props == null || !props.id().equals(key.substring(b + 1, i))) {
      return null;
    }
    return new StoredName(props, key.substring(i + 1));
  }
}
