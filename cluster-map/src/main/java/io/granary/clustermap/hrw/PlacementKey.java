package io.granary.clustermap.hrw;

import io.granary.clustermap.bucket.Bucket;

/**
 * The HRW key of an object, AIStore's "uname": {@code provider/@#/bucket/object} (global namespace). Its digest
 * picks both the target and, inside the target, the mountpath.
 */
public final class PlacementKey {
  private PlacementKey() {}

  public static String of(Bucket bucket, String objectName) {
    return bucket.provider().wireName() + "/@#/" + bucket.name() + "/" + objectName;
  }

  public static long digest(Bucket bucket, String objectName) {
    return HrwHash.digest(of(bucket, objectName));
  }
}
