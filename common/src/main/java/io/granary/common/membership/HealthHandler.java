package io.granary.common.membership;

import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Map;

/** {@code GET /v1/health}: 200 with the node's id, role, uptime and the cluster-map version it holds. */
public final class HealthHandler implements RequestHandler {
  private final ClusterMetadataHolder holder;
  private final String role;

  public HealthHandler(ClusterMetadataHolder holder, String role) {
    this.holder = holder;
    this.role = role;
  }

  @Override
  public void onRequest(HttpExchange ex) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("node", holder.nodeId());
    body.put("role", role);
    body.put("uptimeMillis", ManagementFactory.getRuntimeMXBean().getUptime());
    holder.snapshot().ifPresent(s -> {
      body.put("cluster", s.map().uuid());
      body.put("mapVersion", s.map().version());
      body.put("bucketsVersion", s.buckets().version());
    });
    ex.sendJson(HttpResponseStatus.OK, body);
  }
}
