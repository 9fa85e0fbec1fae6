package io.granary.operator.reconciler;

import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.Node;
import io.granary.clustermap.NodeState;
import io.granary.operator.clusterapi.ClusterApi;
import io.granary.operator.clusterapi.ClusterApiException;
import io.granary.operator.clusterapi.ClusterLocator;
import io.granary.operator.clusterapi.NodeReport;
import io.granary.operator.customresource.GranaryCluster;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How many target pods to run now, from the spec, the pods there are, and the cluster map. Scaling up raises the
 * count at once. Scaling down goes one pod at a time from the highest ordinal: its target is decommissioned through
 * the cluster API, and only once the cluster says it is safe to remove (its objects moved to the others and it left
 * the map) does the count drop. Every decision follows from what the cluster and Kubernetes say now, so a
 * restarted operator resumes where the last one was. Why scaling is blocked is logged by the reconciler, once per
 * change, not on every poll.
 */
final class TargetScaling {
  private static final Logger log = LoggerFactory.getLogger(TargetScaling.class);

  /**
   * What to do.
   *
   * @param replicas target pods the StatefulSet should have now
   * @param phase ScalingUp, ScalingDown or null (not scaling)
   * @param blocked why scaling down cannot go on (the cluster refused, or cannot be asked); null when it can
   * @param detail one sentence on the step in progress, for the status
   */
  record Decision(int replicas, String phase, String blocked, String detail) {
  }

  private final ClusterLocator locator;

  TargetScaling(ClusterLocator locator) {
    this.locator = locator;
  }

  /**
   * @param current the target StatefulSet's replicas, or null before it exists
   * @param map the cluster map, or null when the cluster could not be reached
   */
  Decision decide(GranaryCluster c, Integer current, ClusterMap map, ClusterApi api) {
    int desired = c.getSpec().target.replicas;
    if (current == null) {
      return new Decision(desired, null, null, null);
    }
    if (desired > current) {
      log.info("event=scale-up cluster={} targets={}->{}", key(c), current, desired);
      return new Decision(desired, "ScalingUp", null, "adding targets " + current + ".." + (desired - 1));
    }
    if (desired == current) {
      return new Decision(desired, joiningOrRebalancing(c, map, desired) ? "ScalingUp" : null, null, null);
    }
    return scaleDownStep(c, current, map, api);
  }

  /** Whether targets the spec asks for have yet to join, or the rebalance their joining started still runs. */
  private boolean joiningOrRebalancing(GranaryCluster c, ClusterMap map, int replicas) {
    if (map == null) {
      return false;
    }
    for (int i = 0; i < replicas; i++) {
      Optional<Node> n = locator.target(map, c, i);
      if (n.isEmpty() || n.get().state() == NodeState.JOINING) {
        return true;
      }
    }
    return !map.settled();
  }

  private Decision scaleDownStep(GranaryCluster c, int current, ClusterMap map, ClusterApi api) {
    int ordinal = current - 1;
    if (map == null) {
      return new Decision(current, "ScalingDown", "the cluster API cannot be reached; no target is removed "
          + "before it says so", null);
    }
    Optional<Node> node = locator.target(map, c, ordinal);
    if (node.isEmpty()) {
      // Not in the map: it never joined or already left it; the cluster holds nothing on it.
      log.info("event=scale-down-step cluster={} ordinal={} targets={}->{} reason=not-in-map", key(c), ordinal,
          current, current - 1);
      return new Decision(current - 1, "ScalingDown", null, "removed target pod " + ordinal);
    }
    String id = node.get().id();
    if (node.get().state() == NodeState.OFFLINE) {
      // Its objects are on its disks only and cannot move while it is down: wait for it, change nothing.
      return new Decision(current, "ScalingDown", "target " + id + " (pod " + ordinal + ") is offline: its objects "
          + "cannot move until it is back; if its disks are lost, remove it with granary cluster rm " + id
          + " --force", null);
    }
    try {
      if (node.get().state() != NodeState.DECOMMISSIONING) {
        api.setState(id, "decommissioned");
        log.info("event=decommission cluster={} node={} ordinal={}", key(c), id, ordinal);
        return new Decision(current, "ScalingDown", null, "decommissioning target " + id + " (pod " + ordinal
            + "): its objects move to the others");
      }
      Optional<NodeReport> report = api.node(id);
      if (report.isEmpty() || report.get().safeToRemove()) {
        log.info("event=scale-down-step cluster={} node={} ordinal={} targets={}->{} reason=safe-to-remove", key(c),
            id, ordinal, current, current - 1);
        return new Decision(current - 1, "ScalingDown", null, "target " + id + " drained; removed pod " + ordinal);
      }
      if (report.get().problem() != null) {
        return new Decision(current, "ScalingDown", "target " + id + " (pod " + ordinal + ") cannot drain: "
            + report.get().problem(), null);
      }
      return new Decision(current, "ScalingDown", null, "decommissioning target " + id + " (pod " + ordinal
          + "): waiting until it is safe to remove");
    } catch (ClusterApiException e) {
      return new Decision(current, "ScalingDown", "target " + id + " (pod " + ordinal + ") cannot be decommissioned: "
          + e.getMessage(), null);
    }
  }

  static String key(GranaryCluster c) {
    return c.getMetadata().getNamespace() + "/" + c.getMetadata().getName();
  }
}
