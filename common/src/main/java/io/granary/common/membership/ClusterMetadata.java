package io.granary.common.membership;

import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.bucket.BucketMetadata;
import java.util.Objects;

/**
 * What the primary pushes to every node (metasync): the newest cluster map and bucket metadata. Each part carries
 * its own version; a receiver takes each part only if it is newer than what it has.
 */
public record ClusterMetadata(ClusterMap map, BucketMetadata buckets) {
  public ClusterMetadata {
    Objects.requireNonNull(map, "map");
    Objects.requireNonNull(buckets, "buckets");
    if (!map.uuid().equals(buckets.uuid())) {
      throw new IllegalArgumentException("cluster map and bucket metadata belong to different clusters");
    }
  }
}
