package io.granary.operator.reconciler;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.granary.operator.customresource.GranaryClusterStatus;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** Sets status conditions as Kubernetes expects: one per type, the transition time kept while the status holds. */
final class Conditions {
  static final String SPEC_VALID = "SpecValid";
  static final String CLUSTER_REACHABLE = "ClusterReachable";
  static final String REBALANCED = "Rebalanced";
  static final String SCALE_DOWN_BLOCKED = "ScaleDownBlocked";
  static final String UPGRADED = "Upgraded";
  static final String RECONCILED = "Reconciled";

  private Conditions() {
  }

  static void set(GranaryClusterStatus s, String type, boolean value, String reason, String message, long generation,
      Instant now) {
    String status = value ? "True" : "False";
    Optional<Condition> old = find(s.conditions, type);
    String since = old.filter(c -> status.equals(c.getStatus())).map(Condition::getLastTransitionTime)
        .orElse(now.toString());
    s.conditions.removeIf(c -> type.equals(c.getType()));
    s.conditions.add(new ConditionBuilder().withType(type).withStatus(status).withReason(reason)
        .withMessage(message == null ? "" : message).withObservedGeneration(generation)
        .withLastTransitionTime(since).build());
  }

  static void remove(GranaryClusterStatus s, String type) {
    s.conditions.removeIf(c -> type.equals(c.getType()));
  }

  static Optional<Condition> find(List<Condition> conditions, String type) {
    return conditions.stream().filter(c -> type.equals(c.getType())).findFirst();
  }
}
