package io.granary.proxy.membership;

import io.granary.clustermap.Node;
import io.granary.clustermap.NodeState;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.membership.Readiness;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * A proxy is ready when all of these hold:
 *
 * <ol>
 *   <li>it holds the cluster metadata, received since it started (the primary: created or resumed it; any other
 *       proxy: was answered by the primary or pushed to);
 *   <li>it is {@code active} in that map;
 *   <li>at least one target is {@code active} in that map, so an object can be placed. On the primary that target must
 *       also have answered it since it started: a map resumed from disk lists targets as active that may not run.
 * </ol>
 *
 * Until then PUTs would get 503 NoTargets; a ready proxy can place every object (some may still wait for their
 * owner when other targets are offline).
 */
public final class ProxyReadiness implements Readiness {
  private final ClusterMetadataHolder holder;
  private final Predicate<String> heardFrom;

  /**
   * @param heardFrom whether a target has answered this proxy since it started; the primary's health checks know,
   *     other proxies pass {@code id -> true} and trust the states the primary pushes
   */
  public ProxyReadiness(ClusterMetadataHolder holder, Predicate<String> heardFrom) {
    this.holder = holder;
    this.heardFrom = heardFrom;
  }

  @Override
  public List<String> blockers() {
    List<String> why = new ArrayList<>();
    var snap = holder.snapshot();
    if (snap.isEmpty() || !holder.receivedSinceStart()) {
      why.add("has not received the cluster metadata from the primary yet");
      return why;
    }
    var map = snap.get().map();
    NodeState self = map.node(holder.nodeId()).map(Node::state).orElse(null);
    if (self != NodeState.ACTIVE) {
      why.add(self == null ? "is not in cluster map v" + map.version()
          : "is " + self.wireName() + " in cluster map v" + map.version());
    }
    long active = map.targets().values().stream().filter(t -> t.state() == NodeState.ACTIVE).count();
    long serving = map.targets().values().stream()
        .filter(t -> t.state() == NodeState.ACTIVE && heardFrom.test(t.id())).count();
    if (active == 0) {
      why.add("no target is active in cluster map v" + map.version() + " (" + map.targets().size() + " listed)");
    } else if (serving == 0) {
      why.add("no active target has answered this proxy since it started (" + active + " active in cluster map v"
          + map.version() + ")");
    }
    return why;
  }
}
