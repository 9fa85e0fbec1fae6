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
  /** Longest failure summary kept in the map: it travels with every map version. */
  private static final int MAX_SUMMARY = 600;

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

  /**
   * Why the rebalance failed, in one line: each failed target with how many objects it could not move and its first
   * failure ({@code t1: 12 objects could not be moved, first a/b: target t4 refused a/b: 507 ...}).
   */
  String failureSummary() {
    List<String> parts = new ArrayList<>();
    for (TargetProgress.Answer a : answers.values()) {
      RebalanceProgress p = a.progress();
      if (p == null || !RebalanceProgress.FAILED.equals(p.state())) {
        continue;
      }
      String first = p.failures().isEmpty() ? "" : ", first " + (p.failures().get(0).object().isEmpty() ? ""
          : p.failures().get(0).object() + ": ") + p.failures().get(0).error();
      parts.add(a.target().id() + ": " + p.failed() + (p.failed() == 1 ? " object" : " objects")
          + " could not be moved" + first);
    }
    String s = String.join("; ", parts);
    return s.length() > MAX_SUMMARY ? s.substring(0, MAX_SUMMARY) + "..." : s;
  }

  static RebalanceView of(ClusterMap map, Map<String, TargetProgress.Answer> answers) {
    return new RebalanceView(map.rebalance(), answers);
  }
}
