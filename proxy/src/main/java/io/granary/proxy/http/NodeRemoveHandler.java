package io.granary.proxy.http;

import io.granary.common.api.ApiPaths;
import io.granary.common.control.ControlClient;
import io.granary.common.error.BadRequestException;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.proxy.membership.DeadTargetRemover;
import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * {@code DELETE /v1/cluster/nodes/ID?force=true} on the primary: removes a dead target from the map without moving
 * its data, starts a rebalance among the survivors, and answers what was lost
 * ({@link io.granary.proxy.membership.ForcedRemoval}). 404 for an unknown node; 409 for a live target (decommission
 * it instead), without {@code force}, for a proxy, or for the last target in placement.
 */
final class NodeRemoveHandler implements RequestHandler {
  private final DeadTargetRemover remover;

  NodeRemoveHandler(DeadTargetRemover remover) {
    this.remover = remover;
  }

  @Override
  public void onRequest(HttpExchange ex) {
    String id = ex.path().decodedAfter(ApiPaths.CLUSTER_NODES);
    String force = ex.queryParam("force");
    if (force != null && !force.equals("true") && !force.equals("false")) {
      throw BadRequestException.invalidArgument("force must be true or false, got '" + force + "'");
    }
    remover.remove(id, "true".equals(force)).whenComplete((report, err) -> {
      if (err != null) {
        ex.sendError(ControlClient.cause(err));
      } else {
        ex.sendJson(HttpResponseStatus.OK, report);
      }
    });
  }
}
