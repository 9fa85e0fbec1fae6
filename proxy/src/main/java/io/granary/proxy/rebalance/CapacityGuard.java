package io.granary.proxy.rebalance;

import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.Node;
import io.granary.common.control.ControlClient;
import io.granary.common.error.ConflictException;
import io.granary.common.error.ServiceUnavailableException;
import io.granary.common.rebalance.RebalanceProgress;
import io.granary.proxy.membership.LeaveGuard;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Refuses to take targets out of placement when the targets that stay cannot hold what they hold: the bytes the
 * leaving targets hold must fit in the room the staying ones have below their high watermark, as each target
 * reports it ({@code held_bytes}, {@code room_bytes} of {@code GET /v1/rebalance}). A staying target that cannot
 * answer offers no room; a leaving one that cannot answer is counted as holding nothing (its data cannot move
 * until it returns anyway).
 */
public final class CapacityGuard implements LeaveGuard {
  private static final Duration ASK = Duration.ofSeconds(5);

  private final TargetProgress targets;

  public CapacityGuard(ControlClient client) {
    this.targets = new TargetProgress(client);
  }

  @Override
  public void admit(ClusterMap current, ClusterMap next) {
    List<Node> leaving = new ArrayList<>();
    List<Node> staying = new ArrayList<>();
    for (Node n : next.targets().values()) {
      Node before = current.targets().get(n.id());
      if (n.state().inPlacement()) {
        staying.add(n);
      } else if (before != null && before.state().inPlacement()) {
        leaving.add(before);
      }
    }
    List<Node> all = new ArrayList<>(leaving);
    all.addAll(staying);
    Map<String, TargetProgress.Answer> answers;
    try {
      answers = targets.ask(all).get(ASK.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      throw new ServiceUnavailableException(ServiceUnavailableException.TARGET_OFFLINE,
          "could not ask the targets how much they hold: " + e, 5);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ServiceUnavailableException(ServiceUnavailableException.BUSY, "interrupted", 1);
    }
    long held = 0;
    for (Node n : leaving) {
      RebalanceProgress p = answers.get(n.id()).progress();
      held += p == null ? 0 : p.heldBytes();
    }
    long room = 0;
    for (Node n : staying) {
      RebalanceProgress p = answers.get(n.id()).progress();
      room += p == null ? 0 : p.roomBytes();
    }
    if (held > room) {
      throw new ConflictException("InsufficientCapacity", "target(s) " + leaving.stream().map(Node::id).toList()
          + " hold " + held + " bytes, but the " + staying.size() + " target(s) that would stay have room for only "
          + room + " bytes below their high watermark; add capacity first");
    }
  }
}
