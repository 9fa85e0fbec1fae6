package io.granary.proxy.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.NodeState;
import io.granary.common.api.ApiPaths;
import io.granary.common.error.BadRequestException;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.JsonRequestHandler;
import io.granary.proxy.membership.ClusterAuthority;
import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * {@code PUT /v1/cluster/nodes/ID} with {@code {"state":"maintenance"|"active"|"decommissioned"}} on the
 * primary: changes a node's life-cycle state and answers with the new cluster map.
 */
final class NodeStateHandler extends JsonRequestHandler {
  private final ClusterAuthority authority;
  private final BoundedExecutor control;

  NodeStateHandler(ClusterAuthority authority, BoundedExecutor control) {
    this.authority = authority;
    this.control = control;
  }

  @Override
  protected void handle(HttpExchange ex, JsonNode body) {
    String id = ex.path().decodedAfter(ApiPaths.CLUSTER_NODES);
    if (body == null || !body.isObject() || !body.path("state").isTextual() || body.size() != 1) {
      throw new BadRequestException(BadRequestException.MALFORMED_JSON,
          "expected {\"state\":\"active\"|\"maintenance\"|\"decommissioned\"}");
    }
    NodeState state;
    try {
      state = NodeState.parse(body.get("state").asText());
    } catch (IllegalArgumentException e) {
      throw BadRequestException.invalidArgument(e.getMessage());
    }
    AdminCall.run(ex, control, HttpResponseStatus.OK, () -> authority.setState(id, state).map());
  }
}
