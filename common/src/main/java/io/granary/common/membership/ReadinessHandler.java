package io.granary.common.membership;

import io.granary.common.api.ApiPaths;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.common.http.Router;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code GET|HEAD /v1/health/ready}: 200 when the node is ready, else 503 with {@code Retry-After: 1} and the reasons:
 * {@code {"node","role","ready","reasons":[..],"mapVersion","bucketsVersion"}}. Like {@code /v1/health} it needs
 * no authentication (probes cannot sign), so it is answered before any router checks signatures.
 */
public final class ReadinessHandler implements RequestHandler {
  private final ClusterMetadataHolder holder;
  private final String role;
  private final Readiness readiness;

  public ReadinessHandler(ClusterMetadataHolder holder, String role, Readiness readiness) {
    this.holder = holder;
    this.role = role;
    this.readiness = readiness;
  }

  /** {@code router} with readiness probes answered first, before authentication, signatures or S3 routing. */
  public static Router route(Router router, ClusterMetadataHolder holder, String role, Readiness readiness) {
    ReadinessHandler h = new ReadinessHandler(holder, role, readiness);
    return ex -> ex.path().raw().equals(ApiPaths.READY)
        && (ex.method().equals(HttpMethod.GET) || ex.method().equals(HttpMethod.HEAD)) ? h : router.route(ex);
  }

  @Override
  public void onRequest(HttpExchange ex) {
    List<String> blockers = readiness.blockers();
    HttpResponseStatus status = blockers.isEmpty() ? HttpResponseStatus.OK : HttpResponseStatus.SERVICE_UNAVAILABLE;
    HttpHeaders headers = new DefaultHttpHeaders();
    if (!blockers.isEmpty()) {
      headers.set(HttpHeaderNames.RETRY_AFTER, 1);
    }
    if (ex.method().equals(HttpMethod.HEAD)) {
      ex.sendHead(status, headers);
      return;
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("node", holder.nodeId());
    body.put("role", role);
    body.put("ready", blockers.isEmpty());
    body.put("reasons", blockers);
    holder.snapshot().ifPresent(s -> {
      body.put("mapVersion", s.map().version());
      body.put("bucketsVersion", s.buckets().version());
    });
    ex.sendJson(status, body, headers);
  }
}
