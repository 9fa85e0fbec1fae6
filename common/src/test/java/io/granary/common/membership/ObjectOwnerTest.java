package io.granary.common.membership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.Node;
import io.granary.clustermap.NodeRole;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.BucketMetadata;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.clustermap.bucket.Protection;
import io.granary.clustermap.hrw.PlacementKey;
import io.granary.common.error.ServiceUnavailableException;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link ObjectOwner#forRead}: reads of an erasure-coded object whose owner is offline go to a slice holder. */
class ObjectOwnerTest {
  private static final String UUID = "c0ffee00-0000-4000-8000-000000000003";
  private static final BucketProps PLAIN = new BucketProps(Bucket.local("coded"), "id1", ChecksumType.XXHASH64,
      Instant.EPOCH);
  private static final BucketProps CODED = PLAIN.withProtection(new Protection(1, 2, 1, 0, false));

  private static ClusterMetadataHolder.Snapshot snapshot(String id, NodeState state) {
    Node primary = new Node("p1", NodeRole.PROXY, "http://127.0.0.1:51080", NodeState.ACTIVE, 1);
    ClusterMap m = ClusterMap.bootstrap(UUID, primary, Instant.parse("2026-01-01T00:00:00Z"));
    for (int i = 1; i <= 5; i++) {
      String t = "t" + i;
      m = m.withNode(new Node(t, NodeRole.TARGET, "http://127.0.0.1:600" + i, t.equals(id) ? state
          : NodeState.ACTIVE, 1));
    }
    return new ClusterMetadataHolder.Snapshot(new ClusterMetadata(m, BucketMetadata.empty(UUID)), m.placement());
  }

  @Test
  void offlineOwner_ofACodedObject_readsFromTheNextTargetThatAnswers() {
    List<Node> ranked = snapshot(null, NodeState.ACTIVE).placement().ranked(PlacementKey.digest(CODED.bucket(), "o"),
        4);
    String owner = ranked.get(0).id();
    assertThat(ObjectOwner.forRead(snapshot(null, NodeState.ACTIVE), CODED, "o").id()).isEqualTo(owner);
    for (NodeState away : List.of(NodeState.OFFLINE, NodeState.SUSPENDED)) {
      assertThat(ObjectOwner.forRead(snapshot(owner, away), CODED, "o").id()).isEqualTo(ranked.get(1).id());
      // without erasure coding nothing else holds it: 503 as before
      assertThatThrownBy(() -> ObjectOwner.forRead(snapshot(owner, away), PLAIN, "o"))
          .isInstanceOf(ServiceUnavailableException.class).hasMessageContaining(owner);
    }
  }
}
