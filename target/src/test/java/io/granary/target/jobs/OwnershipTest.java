package io.granary.target.jobs;

import io.granary.common.jobs.NameTemplate;
import static io.granary.target.jobs.JobFixtures.REMOTE;
import static io.granary.target.jobs.JobFixtures.map;
import static io.granary.target.jobs.JobFixtures.target;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.TargetPlacement;
import io.granary.clustermap.hrw.PlacementKey;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class OwnershipTest {
  private static final ClusterMap THREE = map(target("t1", NodeState.ACTIVE), target("t2", NodeState.ACTIVE),
      target("t3", NodeState.ACTIVE));

  @Test
  void owns_unionOverTargets_isEveryNameExactlyOnce() {
    TargetPlacement p = THREE.placement();
    List<Ownership> all = List.of(new Ownership("t1", REMOTE, () -> p), new Ownership("t2", REMOTE, () -> p),
        new Ownership("t3", REMOTE, () -> p));
    Map<String, Integer> perTarget = new HashMap<>();
    for (String name : NameTemplate.parse("train/shard-{00000..02999}.tar")) {
      int owners = 0;
      for (int i = 0; i < all.size(); i++) {
        if (all.get(i).owns(name)) {
          owners++;
          perTarget.merge("t" + (i + 1), 1, Integer::sum);
        }
      }
      assertThat(owners).as(name).isEqualTo(1);
    }
    assertThat(perTarget.values()).allSatisfy(n -> assertThat(n).isBetween(800, 1200));
  }

  @Test
  void owns_agreesWithTheProxysRedirect() {
    TargetPlacement p = THREE.placement();
    Ownership t2 = new Ownership("t2", REMOTE, () -> p);
    for (String name : List.of("a", "b/c", "shard-0001.tar", "ünïcode/名前")) {
      boolean proxySaysT2 = p.owner(PlacementKey.digest(REMOTE, name)).orElseThrow().id().equals("t2");
      assertThat(t2.owns(name)).isEqualTo(proxySaysT2);
    }
  }

  @Test
  void owns_offlineTargetKeepsItsPlace_noChange() {
    AtomicReference<TargetPlacement> current = new AtomicReference<>(THREE.placement());
    Ownership o = new Ownership("t1", REMOTE, current::get);
    o.owns("x");
    current.set(THREE.withNode(target("t2", NodeState.OFFLINE)).placement());
    o.owns("y"); // no exception: placement is unchanged
  }

  @Test
  void owns_placementChanged_throws() {
    AtomicReference<TargetPlacement> current = new AtomicReference<>(THREE.placement());
    Ownership o = new Ownership("t1", REMOTE, current::get);
    current.set(THREE.withNode(target("t4", NodeState.ACTIVE)).placement());
    assertThatThrownBy(() -> o.owns("x")).isInstanceOf(Ownership.PlacementChangedException.class)
        .hasMessageContaining("v4 -> v5");
  }
}
