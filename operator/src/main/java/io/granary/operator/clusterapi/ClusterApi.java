package io.granary.operator.clusterapi;

import io.granary.clustermap.ClusterMap;
import java.util.Optional;

/**
 * What the operator asks of a running cluster, through any proxy (metadata changes are forwarded to the primary).
 * Every method throws {@link ClusterApiException} when the cluster cannot be reached or refuses.
 */
public interface ClusterApi {

  /** {@code GET /v1/cluster/map}: the current cluster map. */
  ClusterMap map();

  /** {@code GET /v1/cluster/nodes/ID}: the node's state and whether it may be stopped or removed; empty on 404. */
  Optional<NodeReport> node(String id);

  /**
   * {@code PUT /v1/cluster/nodes/ID {"state": STATE}}: e.g. {@code decommissioned}. A refusal (409
   * {@code InvalidNodeState}, {@code InsufficientCapacity}) changes nothing and comes back as the exception.
   */
  void setState(String id, String state);
}
