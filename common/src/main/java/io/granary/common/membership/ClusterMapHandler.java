package io.granary.common.membership;

import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.netty.handler.codec.http.HttpResponseStatus;

/** {@code GET /v1/cluster/map}: the cluster map this node holds, as JSON. */
public final class ClusterMapHandler implements RequestHandler {
  private final ClusterMetadataHolder holder;

  public ClusterMapHandler(ClusterMetadataHolder holder) {
    this.holder = holder;
  }

  @Override
  public void onRequest(HttpExchange ex) {
    ex.sendJson(HttpResponseStatus.OK, holder.require().map());
  }
}
