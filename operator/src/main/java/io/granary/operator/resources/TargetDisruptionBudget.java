package io.granary.operator.resources;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.granary.operator.customresource.GranaryCluster;

/** Limits how many targets a node drain may evict at once (spec.target.maxUnavailable). */
public final class TargetDisruptionBudget {
  private TargetDisruptionBudget() {
  }

  public static PodDisruptionBudget desired(GranaryCluster c) {
    return new PodDisruptionBudgetBuilder()
        .withMetadata(Owned.meta(c, Names.targets(c), Labels.of(c, Role.TARGET)))
        .withNewSpec()
        .withMaxUnavailable(new IntOrString(c.getSpec().target.maxUnavailable))
        .withNewSelector().withMatchLabels(Labels.selector(c, Role.TARGET)).endSelector()
        .endSpec()
        .build();
  }
}
