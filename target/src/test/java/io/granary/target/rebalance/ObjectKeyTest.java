package io.granary.target.rebalance;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.Node;
import io.granary.clustermap.NodeRole;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.BucketMetadata;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.common.membership.ClusterMetadata;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.target.storage.ObjectStore;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ObjectKeyTest {
  private static final BucketProps BUCKET =
      new BucketProps(Bucket.local("bkt"), "b1d", ChecksumType.XXHASH64, Instant.EPOCH);

  private static ClusterMetadataHolder.Snapshot snapshot() {
    ClusterMap map = ClusterMap.bootstrap("u", new Node("p1", NodeRole.PROXY, "http://h:1", NodeState.ACTIVE, 1),
        Instant.EPOCH);
    ClusterMetadata md = new ClusterMetadata(map, BucketMetadata.empty("u").with(BUCKET));
    return new ClusterMetadataHolder.Snapshot(md, map.placement());
  }

  @Test
  void resolve_namesTheObjectOfAKnownBucketIncarnation_withSlashesInTheName() {
    ObjectKey k = ObjectKey.resolve(ObjectStore.bucketPrefix(BUCKET) + "a/b//c", snapshot());
    assertThat(k).isEqualTo(new ObjectKey(BUCKET, "a/b//c"));
  }

  @Test
  void resolve_goneOrRecreatedBucketOrNoObjectKey_isNull() {
    assertThat(ObjectKey.resolve("ais/other/b1d/x", snapshot())).as("unknown bucket").isNull();
    assertThat(ObjectKey.resolve("ais/bkt/0000/x", snapshot())).as("an older incarnation").isNull();
    assertThat(ObjectKey.resolve("ais/bkt", snapshot())).isNull();
    assertThat(ObjectKey.resolve("walk", snapshot())).isNull();
  }
}
