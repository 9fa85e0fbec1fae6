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
import java.util.Iterator;
import java.util.Set;

/**
 * {@code PUT /v1/cluster/nodes/ID} on the primary: changes a node's life-cycle state or a target's weight, and
 * answers with the new cluster map. Bodies:
 *
 * <pre>
 * {"state":"active"|"maintenance"|"suspended"|"decommissioned"}
 * {"state":"maintenance","rebalance":false}     the same as "suspended": a short maintenance, no data moves
 * {"weight":2.5}                                a target's placement weight
 * </pre>
 */
final class NodeStateHandler extends JsonRequestHandler {
  private static final Set<String> FIELDS = Set.of("state", "rebalance", "weight");
  private static final String EXPECTED = "expected {\"state\":\"active\"|\"maintenance\"|\"suspended\"|"
      + "\"decommissioned\"}, {\"state\":\"maintenance\",\"rebalance\":false} or {\"weight\":W}";

  private final ClusterAuthority authority;
  private final BoundedExecutor control;

  NodeStateHandler(ClusterAuthority authority, BoundedExecutor control) {
    this.authority = authority;
    this.control = control;
  }

  @Override
  protected void handle(HttpExchange ex, JsonNode body) {
    String id = ex.path().decodedAfter(ApiPaths.CLUSTER_NODES);
    if (body == null || !body.isObject() || body.isEmpty()) {
      throw new BadRequestException(BadRequestException.MALFORMED_JSON, EXPECTED);
    }
    for (Iterator<String> it = body.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!FIELDS.contains(f)) {
        throw BadRequestException.invalidArgument("unknown field '" + f + "'; " + EXPECTED);
      }
    }
    if (body.has("weight")) {
      if (body.size() != 1 || !body.get("weight").isNumber()) {
        throw BadRequestException.invalidArgument("weight must be a number, alone in the body; " + EXPECTED);
      }
      double weight = body.get("weight").asDouble();
      AdminCall.run(ex, control, HttpResponseStatus.OK, () -> authority.setWeight(id, weight).map());
      return;
    }
    if (!body.path("state").isTextual()) {
      throw new BadRequestException(BadRequestException.MALFORMED_JSON, EXPECTED);
    }
    NodeState state;
    try {
      state = NodeState.parse(body.get("state").asText());
    } catch (IllegalArgumentException e) {
      throw BadRequestException.invalidArgument(e.getMessage());
    }
    if (body.has("rebalance")) {
      if (!body.get("rebalance").isBoolean() || state != NodeState.MAINTENANCE) {
        throw BadRequestException.invalidArgument("rebalance is a boolean that goes with state maintenance; "
            + EXPECTED);
      }
      if (!body.get("rebalance").asBoolean()) {
        state = NodeState.SUSPENDED;
      }
    }
    NodeState target = state;
    AdminCall.run(ex, control, HttpResponseStatus.OK, () -> authority.setState(id, target).map());
  }
}
