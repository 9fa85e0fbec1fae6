package io.granary.proxy.rebalance;

import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.Rebalance;
import io.granary.common.rebalance.RebalanceProgress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The latest rebalance of a map and what its targets say about it: whether every target has moved what it holds
 * (so the primary may finish it), which leaving targets hold nothing any more, and who is still being waited for.
 *
 * @param rebalance the map's latest rebalance
 * @param answers each target's answer, by id
 */
record RebalanceView(Rebalance rebalance, Map<String, TargetProgress.Answer> answers) {

  /**
   * Whether every target holds nothing misplaced for this rebalance: each answered {@code done} for it, and each
   * target out of placement holds no object at all.
   */
  boolean allDone() {
    return waitingFor().isEmpty();
  }

  /** Targets not done yet, with why. */
  List<String> waitingFor() {
    List<String> out = new ArrayList<>();
    for (TargetProgress.Answer a : answers.values()) {
      RebalanceProgress p = a.progress();
      if (p == null) {
        out.add(a.problem());
      } else if (!p.doneWith(rebalance.id())) {
        out.add(a.target().id() + " is " + (p.rebalance() == rebalance.id() ? p.state() : "not started yet"));
      } else if (!a.target().state().inPlacement() && p.holdsObjects()) {
        out.add(a.target().id() + " still holds objects or multipart uploads");
      }
    }
    return out;
  }

  /** Targets being decommissioned that hold nothing: they may leave the map. */
  Set<String> drained() {
    Set<String> out = new TreeSet<>();
    for (TargetProgress.Answer a : answers.values()) {
      if (a.target().state() == NodeState.DECOMMISSIONING && a.progress() != null
          && a.progress().doneWith(rebalance.id()) && !a.progress().holdsObjects()
          && a.progress().pendingHandoffs() == 0) {
        out.add(a.target().id());
      }
    }
    return out;
  }

  /** Whether every target that answered has ended its walk and some failed: waiting will not finish it. */
  boolean failed() {
    boolean anyFailed = false;
    for (TargetProgress.Answer a : answers.values()) {
      RebalanceProgress p = a.progress();
      if (p == null || p.rebalance() != rebalance.id() || RebalanceProgress.RUNNING.equals(p.state())) {
        return false;
      }
      anyFailed |= RebalanceProgress.FAILED.equals(p.state());
    }
    return anyFailed;
  }

  static RebalanceView of(ClusterMap map, Map<String, TargetProgress.Answer> answers) {
    return new RebalanceView(map.rebalance(), answers);
  }
}
