package io.granary.clustermap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.hrw.PlacementKey;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ClusterMapTest {
  private static final Node PRIMARY = new Node("p1", NodeRole.PROXY, "http://127.0.0.1:51080", NodeState.ACTIVE, 1);

  private static ClusterMap threeTargets() {
    ClusterMap m = ClusterMap.bootstrap("uuid-1", PRIMARY, Instant.parse("2026-11-21T00:00:00Z"));
    for (int i = 1; i <= 3; i++) {
      m = m.withNode(new Node("t" + i, NodeRole.TARGET, "http://127.0.0.1:5108" + i, NodeState.ACTIVE, 1));
    }
    return m;
  }

  @Test
  void withNode_bumpsVersion() {
    ClusterMap m = threeTargets();
    assertThat(m.version()).isEqualTo(4);
    assertThat(m.targets()).containsOnlyKeys("t1", "t2", "t3");
  }

  @Test
  void placement_offlineOwnerKeepsItsObjects() {
    ClusterMap m = threeTargets();
    long k = PlacementKey.digest(Bucket.local("bkt"), "obj");
    Node owner = m.placement().owner(k).orElseThrow();

    ClusterMap offline = m.withNode(owner.withState(NodeState.OFFLINE));
    assertThat(offline.placement().owner(k).orElseThrow().id()).isEqualTo(owner.id());
  }

  @Test
  void placement_skipsMaintenanceAndDecommissionedNodes() {
    ClusterMap m = threeTargets();
    for (NodeState out : new NodeState[] {NodeState.MAINTENANCE, NodeState.DECOMMISSIONED}) {
      for (int i = 0; i < 1000; i++) {
        long k = PlacementKey.digest(Bucket.local("bkt"), "o" + i);
        Node owner = m.placement().owner(k).orElseThrow();
        ClusterMap without = m.withNode(owner.withState(out));
        assertThat(without.placement().owner(k).orElseThrow().id()).isNotEqualTo(owner.id());
      }
    }
  }

  @Test
  void json_roundTripsWithDocumentedFields() throws Exception {
    ClusterMap m = threeTargets().withNode(
        new Node("t2", NodeRole.TARGET, "http://127.0.0.1:51082", NodeState.MAINTENANCE, 2.5));
    String json = ClusterJson.mapper().writeValueAsString(m);

    assertThat(json).contains("\"version\":5", "\"uuid\":\"uuid-1\"", "\"primary\":\"p1\"", "\"proxies\"",
        "\"targets\"", "\"state\":\"maintenance\"", "\"role\":\"target\"");
    ClusterMap back = ClusterJson.mapper().readValue(json, ClusterMap.class);
    assertThat(back).isEqualTo(m);
  }

  @Test
  void constructor_rejectsPrimaryThatIsNotAProxy() {
    assertThatThrownBy(() -> new ClusterMap(1, "u", "nobody", java.util.Map.of(), java.util.Map.of(), null))
        .hasMessageContaining("primary");
  }

  @Test
  void node_rejectsBadIdsAndWeights() {
    assertThatThrownBy(() -> new Node("../x", NodeRole.TARGET, "http://h", NodeState.ACTIVE, 1))
        .hasMessageContaining("invalid node id");
    assertThatThrownBy(() -> new Node("t1", NodeRole.TARGET, "http://h", NodeState.ACTIVE, -1))
        .hasMessageContaining("weight");
  }

  @Test
  void nodeState_parseNamesValidValues() {
    assertThat(NodeState.parse("Maintenance")).isEqualTo(NodeState.MAINTENANCE);
    assertThatThrownBy(() -> NodeState.parse("gone")).hasMessageContaining("active, offline, maintenance");
  }
}
