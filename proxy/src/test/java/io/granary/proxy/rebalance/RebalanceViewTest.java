package io.granary.proxy.rebalance;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.clustermap.Node;
import io.granary.clustermap.NodeRole;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.Rebalance;
import io.granary.common.rebalance.RebalanceProgress;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** When the primary may finish a rebalance, and what its status sums, from the targets' answers. */
class RebalanceViewTest {
  private static final Instant T = Instant.parse("2026-11-26T00:00:00Z");
  private static final Rebalance RB = new Rebalance(7, Rebalance.State.RUNNING, T, null);

  private static Node node(String id, NodeState state) {
    return new Node(id, NodeRole.TARGET, "http://h/" + id, state, 1);
  }

  private static RebalanceProgress progress(String target, long id, String state, long sent, long received,
      boolean holds, long failed) {
    List<RebalanceProgress.Failure> f = failed == 0 ? List.of()
        : List.of(new RebalanceProgress.Failure("ais://b/x", "BadDigest"));
    return new RebalanceProgress(target, id, state, 10, 1000, 10, true, sent, sent * 100, 0, received,
        received * 100, failed, f, 0, 500, holds, 9999, 100.0, 3L, 0, T, null);
  }

  private static TargetProgress.Answer answer(Node n, RebalanceProgress p) {
    return new TargetProgress.Answer(n, p, p == null ? n.id() + " did not answer" : null);
  }

  private static RebalanceView view(TargetProgress.Answer... answers) {
    Map<String, TargetProgress.Answer> m = new LinkedHashMap<>();
    for (TargetProgress.Answer a : answers) {
      m.put(a.target().id(), a);
    }
    return new RebalanceView(RB, m);
  }

  @Test
  void allDone_onlyWhenEveryTargetIsDoneWithThisRebalance_andLeaversHoldNothing() {
    Node t1 = node("t1", NodeState.ACTIVE);
    Node t2 = node("t2", NodeState.DECOMMISSIONING);
    assertThat(view(answer(t1, progress("t1", 7, "done", 5, 0, true, 0)),
        answer(t2, progress("t2", 7, "done", 5, 0, false, 0))).allDone()).isTrue();

    RebalanceView older = view(answer(t1, progress("t1", 6, "done", 5, 0, true, 0)),
        answer(t2, progress("t2", 7, "done", 5, 0, false, 0)));
    assertThat(older.allDone()).as("t1 has not started rb-7").isFalse();
    assertThat(older.waitingFor()).containsExactly("t1 is not started yet");

    RebalanceView holding = view(answer(t1, progress("t1", 7, "done", 5, 0, true, 0)),
        answer(t2, progress("t2", 7, "done", 5, 0, true, 0)));
    assertThat(holding.allDone()).as("a leaving target still holds objects").isFalse();
    assertThat(holding.drained()).isEmpty();

    RebalanceView silent = view(answer(t1, null), answer(t2, progress("t2", 7, "done", 5, 0, false, 0)));
    assertThat(silent.allDone()).as("a target that cannot answer holds it open").isFalse();
    assertThat(silent.drained()).containsExactly("t2");
  }

  @Test
  void failed_whenEveryTargetEndedAndSomeFailed_notWhileAnyRuns() {
    Node t1 = node("t1", NodeState.ACTIVE);
    Node t2 = node("t2", NodeState.ACTIVE);
    assertThat(view(answer(t1, progress("t1", 7, "failed", 5, 0, true, 1)),
        answer(t2, progress("t2", 7, "done", 5, 0, true, 0))).failed()).isTrue();
    assertThat(view(answer(t1, progress("t1", 7, "failed", 5, 0, true, 1)),
        answer(t2, progress("t2", 7, "running", 5, 0, true, 0))).failed()).isFalse();
  }

  @Test
  void status_sumsTheTargetsParts_andTakesItsStateFromTheMap() {
    Node t1 = node("t1", NodeState.ACTIVE);
    Node t2 = node("t2", NodeState.ACTIVE);
    RebalanceStatus s = RebalanceStatus.of(view(answer(t1, progress("t1", 7, "running", 4, 1, true, 1)),
        answer(t2, progress("t2", 7, "done", 3, 4, true, 0))));
    assertThat(s.id()).isEqualTo("rb-7");
    assertThat(s.state()).isEqualTo("running");
    assertThat(s.objects().moved()).isEqualTo(7);
    assertThat(s.objects().received()).isEqualTo(5);
    assertThat(s.objects().failed()).isEqualTo(1);
    assertThat(s.bytes().moved()).isEqualTo(700);
    assertThat(s.failures()).extracting(RebalanceStatus.Failure::target).containsExactly("t1");
    assertThat(s.waitingFor()).containsExactly("t1 is running");
    assertThat(s.targets()).containsOnlyKeys("t1", "t2");

    assertThat(RebalanceStatus.superseded(5, RB).supersededBy()).isEqualTo("rb-7");
    RebalanceView finished = new RebalanceView(RB.ended(Rebalance.State.FINISHED, T), Map.of());
    assertThat(RebalanceStatus.of(finished).state()).isEqualTo("succeeded");
  }
}
