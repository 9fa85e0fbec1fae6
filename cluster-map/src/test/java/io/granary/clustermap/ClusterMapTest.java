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
  void placement_skipsMaintenanceAndDecommissioningNodes() {
    ClusterMap m = threeTargets();
    for (NodeState out : new NodeState[] {NodeState.MAINTENANCE, NodeState.DECOMMISSIONING}) {
      for (int i = 0; i < 1000; i++) {
        long k = PlacementKey.digest(Bucket.local("bkt"), "o" + i);
        Node owner = m.placement().owner(k).orElseThrow();
        ClusterMap without = m.withNode(owner.withState(out));
        assertThat(without.placement().owner(k).orElseThrow().id()).isNotEqualTo(owner.id());
      }
    }
  }

  @Test
  void placement_suspendedOwnerKeepsItsObjects() {
    ClusterMap m = threeTargets();
    long k = PlacementKey.digest(Bucket.local("bkt"), "obj");
    Node owner = m.placement().owner(k).orElseThrow();

    ClusterMap suspended = m.withNode(owner.withState(NodeState.SUSPENDED));
    assertThat(suspended.placement().owner(k).orElseThrow().id()).isEqualTo(owner.id());
    assertThat(suspended.placementSignature()).isEqualTo(m.placementSignature());
  }

  @Test
  void placementSignature_changesWithMembershipWeightAndLeaving_notWithOffline() {
    ClusterMap m = threeTargets();
    Node t2 = m.targets().get("t2");
    assertThat(m.withNode(t2.withState(NodeState.OFFLINE)).placementSignature()).isEqualTo(m.placementSignature());
    assertThat(m.withNode(t2.withState(NodeState.MAINTENANCE)).placementSignature())
        .isNotEqualTo(m.placementSignature());
    assertThat(m.withNode(t2.withWeight(2)).placementSignature()).isNotEqualTo(m.placementSignature());
    assertThat(m.withNode(new Node("t4", NodeRole.TARGET, "http://h:4", NodeState.ACTIVE, 1)).placementSignature())
        .isNotEqualTo(m.placementSignature());
  }

  @Test
  void rankedHolders_putThePreviousOwnerFirstAmongTheTargetsOfThePreviousMap() {
    ClusterMap before = threeTargets();
    ClusterMap after = before.withNode(new Node("t4", NodeRole.TARGET, "http://h:4", NodeState.ACTIVE, 1))
        .withNode(before.targets().get("t1").withState(NodeState.DECOMMISSIONING));
    for (int i = 0; i < 2000; i++) {
      long k = PlacementKey.digest(Bucket.local("bkt"), "o" + i);
      String previous = before.placement().owner(k).orElseThrow().id();
      String now = after.placement().owner(k).orElseThrow().id();
      java.util.List<String> ranked = after.placement().rankedHolders(k).stream().map(Node::id).toList();
      assertThat(ranked).hasSize(4);
      // Among the targets placed before, the previous owner ranks first; among those placed now, the owner.
      assertThat(ranked.stream().filter(id -> !id.equals("t4")).findFirst().orElseThrow()).isEqualTo(previous);
      assertThat(ranked.stream().filter(id -> !id.equals("t1")).findFirst().orElseThrow()).isEqualTo(now);
    }
  }

  @Test
  void holders_includeLeavingTargetsUntilTheRebalanceFinishes() {
    Instant t = Instant.parse("2026-11-26T00:00:00Z");
    ClusterMap m = threeTargets().withNode(
        new Node("t3", NodeRole.TARGET, "http://127.0.0.1:51083", NodeState.MAINTENANCE, 1));
    assertThat(m.settled()).isTrue();
    ClusterMap running = m.withRebalance(Rebalance.next(m.rebalance(), t));
    assertThat(running.settled()).isFalse();
    assertThat(running.placement().holders()).extracting(Node::id).containsExactly("t1", "t2", "t3");
    ClusterMap aborted = running.withRebalance(running.rebalance().ended(Rebalance.State.ABORTED, t));
    assertThat(aborted.settled()).as("aborted: objects may still be misplaced").isFalse();
    ClusterMap finished = running.withRebalance(running.rebalance().ended(Rebalance.State.FINISHED, t));
    assertThat(finished.settled()).isTrue();
    assertThat(finished.placement().holders()).extracting(Node::id).containsExactly("t1", "t2");
  }

  @Test
  void retire_removesTheTargetAndRemembersItsId() {
    ClusterMap m = threeTargets().retire("t2");
    assertThat(m.version()).isEqualTo(5);
    assertThat(m.targets()).containsOnlyKeys("t1", "t3");
    assertThat(m.retired()).containsExactly("t2");
  }

  @Test
  void rebalance_jobIdsRoundTrip_andNextCountsUp() {
    Instant t = Instant.parse("2026-11-26T00:00:00Z");
    Rebalance first = Rebalance.next(null, t);
    assertThat(first.id()).isEqualTo(1);
    assertThat(Rebalance.next(first, t).jobId()).isEqualTo("rb-2");
    assertThat(Rebalance.idOf("rb-2")).isEqualTo(2);
    for (String bad : new String[] {"rb-", "rb-x", "rb-0", "rb--1", "pf-12", null}) {
      assertThat(Rebalance.idOf(bad)).as(bad).isEqualTo(-1);
    }
  }

  @Test
  void json_roundTripsRebalanceAndRetired_andReadsMapsWithoutThem() throws Exception {
    Instant t = Instant.parse("2026-11-26T00:00:00Z");
    ClusterMap m = threeTargets().retire("t3").withRebalance(Rebalance.next(null, t));
    String json = ClusterJson.mapper().writeValueAsString(m);
    assertThat(json).contains("\"rebalance\":{\"id\":1,\"state\":\"running\"", "\"retired\":[\"t3\"]");
    assertThat(ClusterJson.mapper().readValue(json, ClusterMap.class)).isEqualTo(m);

    String old = ClusterJson.mapper().writeValueAsString(threeTargets());
    assertThat(old).doesNotContain("rebalance", "retired");
    assertThat(ClusterJson.mapper().readValue(old, ClusterMap.class)).isEqualTo(threeTargets());
  }

  @Test
  void rebalance_retry_isTheNextIdWithOneMoreAttempt_andEndingDropsTheScheduledRetry() throws Exception {
    Instant t = Instant.parse("2026-11-26T00:00:00Z");
    Rebalance first = Rebalance.next(null, t);
    assertThat(first.attempt()).isEqualTo(1);
    assertThat(first.lastError()).isNull();
    Rebalance failed = first.failed("rb-1: t2: 3 objects could not be moved", t.plusSeconds(10));
    assertThat(failed.running()).as("a failed attempt keeps the map unsettled").isTrue();
    assertThat(failed.id()).isEqualTo(1);
    Rebalance retry = failed.retry(t.plusSeconds(10));
    assertThat(retry.id()).isEqualTo(2);
    assertThat(retry.attempt()).isEqualTo(2);
    assertThat(retry.lastError()).isEqualTo("rb-1: t2: 3 objects could not be moved");
    assertThat(retry.nextAttempt()).isNull();
    assertThat(failed.ended(Rebalance.State.ABORTED, t).nextAttempt()).as("no retry after an abort").isNull();
    assertThat(Rebalance.next(retry, t).attempt()).as("a new change starts over").isEqualTo(1);

    ClusterMap m = threeTargets().withRebalance(failed);
    String json = ClusterJson.mapper().writeValueAsString(m);
    assertThat(json).contains("\"attempt\":1", "\"lastError\":\"rb-1: t2", "\"nextAttempt\":");
    assertThat(ClusterJson.mapper().readValue(json, ClusterMap.class)).isEqualTo(m);
    String old = "{\"id\":4,\"state\":\"running\",\"started\":\"2026-11-26T00:00:00Z\"}";
    assertThat(ClusterJson.mapper().readValue(old, Rebalance.class).attempt()).isEqualTo(1);
  }

  @Test
  void withPrimary_isANewVersionOfANewerEpoch_keepingTargetsAndBuckets_andTheEpochRoundTrips() throws Exception {
    ClusterMap m = threeTargets();
    assertThat(m.epoch()).as("a fixed primary's maps").isZero();
    Node p2 = new Node("p2", NodeRole.PROXY, "http://127.0.0.1:51090", NodeState.ACTIVE, 1);

    ClusterMap next = m.withPrimary(p2, 1);
    assertThat(next.version()).isEqualTo(m.version() + 1);
    assertThat(next.primary()).isEqualTo("p2");
    assertThat(next.epoch()).isEqualTo(1);
    assertThat(next.proxies()).containsOnlyKeys("p1", "p2");
    assertThat(next.placementSignature()).isEqualTo(m.placementSignature());
    assertThat(next.withNode(p2.withState(NodeState.ACTIVE)).epoch()).as("later versions keep the epoch").isEqualTo(1);
    assertThatThrownBy(() -> next.withPrimary(PRIMARY, 1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("above 1");

    String json = ClusterJson.mapper().writeValueAsString(next);
    assertThat(json).contains("\"epoch\":1");
    assertThat(ClusterJson.mapper().readValue(json, ClusterMap.class)).isEqualTo(next);
    String old = ClusterJson.mapper().writeValueAsString(m).replace("\"epoch\":0,", "").replace(",\"epoch\":0", "");
    assertThat(old).doesNotContain("epoch");
    assertThat(ClusterJson.mapper().readValue(old, ClusterMap.class).epoch()).as("maps written before epochs").isZero();
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
    assertThat(NodeState.parse("decommissioned")).isEqualTo(NodeState.DECOMMISSIONING);
    assertThat(NodeState.DECOMMISSIONING.wireName()).isEqualTo("decommissioning");
    assertThatThrownBy(() -> NodeState.parse("gone")).hasMessageContaining("active, offline, suspended, maintenance");
  }
}
