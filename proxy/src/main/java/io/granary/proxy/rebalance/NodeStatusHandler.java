package io.granary.proxy.rebalance;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.Node;
import io.granary.clustermap.NodeRole;
import io.granary.clustermap.NodeState;
import io.granary.common.api.ApiPaths;
import io.granary.common.control.ControlClient;
import io.granary.common.error.NodeNotFoundException;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.rebalance.RebalanceProgress;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.List;

/**
 * {@code GET /v1/cluster/nodes/ID}: one node's state and, for a target, what it holds and how its part of the
 * rebalance goes; what an operator (or the Kubernetes operator) polls while a target goes into maintenance or is
 * decommissioned. A decommissioned target that left the map answers {@code safe_to_remove: true}.
 */
public final class NodeStatusHandler implements RequestHandler {
  private final ClusterMetadataHolder cluster;
  private final TargetProgress targets;

  public NodeStatusHandler(ClusterMetadataHolder cluster, ControlClient client) {
    this.cluster = cluster;
    this.targets = new TargetProgress(client);
  }

  /**
   * @param state the node's state; {@code decommissioned} once it left the map
   * @param inPlacement whether HRW places objects on it
   * @param rebalance the cluster's latest rebalance ({@code rb-N}) and its state
   * @param progress the target's part in it (null when it cannot answer, or for a proxy)
   * @param problem why there is no progress
   * @param safeToStop its process may be stopped without making objects unavailable for long: suspended, or in
   *     maintenance with its objects moved off
   * @param safeToRemove its disks may be removed: it was decommissioned and left the map
   */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonInclude(JsonInclude.Include.NON_NULL)
  record NodeStatus(String id, String role, String state, String url, Double weight, Boolean inPlacement,
      String rebalance, String rebalanceState, RebalanceProgress progress, String problem, boolean safeToStop,
      boolean safeToRemove) {
  }

  @Override
  public void onRequest(HttpExchange ex) {
    String id = ex.path().decodedAfter(ApiPaths.CLUSTER_NODES);
    ClusterMap map = cluster.require().map();
    if (map.retired().contains(id)) {
      ex.sendJson(HttpResponseStatus.OK, new NodeStatus(id, NodeRole.TARGET.wireName(), "decommissioned", null, null,
          false, null, null, null, null, true, true));
      return;
    }
    Node n = map.node(id).orElseThrow(() -> new NodeNotFoundException(id));
    String rb = map.rebalance() == null ? null : map.rebalance().jobId();
    String rbState = map.rebalance() == null ? null : map.rebalance().state().wireName();
    if (n.role() == NodeRole.PROXY) {
      ex.sendJson(HttpResponseStatus.OK, new NodeStatus(id, n.role().wireName(), n.state().wireName(), n.url(),
          null, null, null, null, null, null, n.state() != NodeState.ACTIVE, false));
      return;
    }
    targets.ask(List.of(n)).whenComplete((answers, err) -> {
      TargetProgress.Answer a = err == null ? answers.get(id) : null;
      RebalanceProgress p = a == null ? null : a.progress();
      String problem = p != null ? null : a != null ? a.problem() : String.valueOf(ControlClient.cause(err));
      boolean safeToStop = n.state() == NodeState.SUSPENDED
          || (n.state() == NodeState.MAINTENANCE && map.settled() && p != null && !p.holdsObjects());
      ex.sendJson(HttpResponseStatus.OK, new NodeStatus(id, n.role().wireName(), n.state().wireName(), n.url(),
          n.weight(), n.state().inPlacement(), rb, rbState, p, problem, safeToStop, false));
    });
  }
}
