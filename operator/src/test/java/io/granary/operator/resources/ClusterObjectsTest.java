package io.granary.operator.resources;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.granary.operator.Fixtures;
import io.granary.operator.customresource.GranaryCluster;
import org.junit.jupiter.api.Test;

/** The cluster Secret, the targets' PodDisruptionBudget and the nodes' RBAC. */
class ClusterObjectsTest {
  private final GranaryCluster c = Fixtures.cluster("gc", "ns1", 3);

  @Test
  void clusterSecret_isRandomAndLongEnough() {
    Secret a = ClusterSecret.generate(c);
    Secret b = ClusterSecret.generate(c);

    assertThat(a.getMetadata().getName()).isEqualTo("gc-cluster");
    assertThat(a.getStringData().get(ClusterSecret.KEY)).hasSize(43).isNotEqualTo(b.getStringData()
        .get(ClusterSecret.KEY));
    assertThat(a.getMetadata().getOwnerReferences()).singleElement()
        .satisfies(o -> assertThat(o.getUid()).isEqualTo("uid-gc"));
  }

  @Test
  void disruptionBudget_selectsTheTargets() {
    c.getSpec().target.maxUnavailable = 2;
    PodDisruptionBudget p = TargetDisruptionBudget.desired(c);

    assertThat(p.getMetadata().getName()).isEqualTo("gc-target");
    assertThat(p.getSpec().getMaxUnavailable().getIntVal()).isEqualTo(2);
    assertThat(p.getSpec().getSelector().getMatchLabels()).isEqualTo(Labels.selector(c, Role.TARGET));
  }

  @Test
  void rbac_letsTheNodesHoldALeaseAndKeepConfigMaps() {
    var role = NodeRbac.role(c);
    RoleBinding binding = NodeRbac.roleBinding(c);

    assertThat(NodeRbac.serviceAccount(c).getMetadata().getName()).isEqualTo("gc-node");
    assertThat(role.getRules()).extracting(PolicyRule::getResources).containsExactly(
        java.util.List.of("leases"), java.util.List.of("configmaps"));
    assertThat(role.getRules().get(0).getApiGroups()).containsExactly("coordination.k8s.io");
    assertThat(role.getRules()).allSatisfy(r -> assertThat(r.getVerbs()).contains("get", "create", "update"));
    assertThat(binding.getRoleRef().getName()).isEqualTo("gc-node");
    assertThat(binding.getSubjects()).singleElement().satisfies(s -> {
      assertThat(s.getKind()).isEqualTo("ServiceAccount");
      assertThat(s.getName()).isEqualTo("gc-node");
      assertThat(s.getNamespace()).isEqualTo("ns1");
    });
  }
}
