package io.granary.proxy.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.ClusterJson;
import io.granary.common.control.ControlClient;
import io.granary.common.error.GatewayTimeoutException;
import io.granary.common.error.ServiceUnavailableException;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.JsonRequestHandler;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.net.http.HttpTimeoutException;

/**
 * On a non-primary proxy, relays a metadata change (bucket create or delete, join, node state) to the primary
 * and returns its answer unchanged: only the primary writes cluster metadata. 503 while no primary is known.
 */
final class PrimaryForwardHandler extends JsonRequestHandler {
  private final ControlClient client;
  private final String primaryUrl;

  PrimaryForwardHandler(ControlClient client, String primaryUrl) {
    this.client = client;
    this.primaryUrl = primaryUrl;
  }

  @Override
  protected void handle(HttpExchange ex, JsonNode body) throws Exception {
    if (primaryUrl == null) {
      throw new ServiceUnavailableException(ServiceUnavailableException.PRIMARY_UNREACHABLE,
          "no primary proxy is known yet (an election is on)", 2);
    }
    byte[] bytes = body == null ? null : ClusterJson.mapper().writeValueAsBytes(body);
    client.forward(ex.method().name(), primaryUrl + ex.request().uri(), bytes, "application/json")
        .whenComplete((resp, err) -> {
          if (err != null) {
            Throwable cause = ControlClient.cause(err);
            ex.sendError(cause instanceof HttpTimeoutException // it took the request and did not answer in time
                ? new GatewayTimeoutException("the primary proxy at " + primaryUrl + " did not answer in time: "
                    + cause.getMessage())
                : new ServiceUnavailableException(ServiceUnavailableException.PRIMARY_UNREACHABLE,
                    "the primary proxy at " + primaryUrl + " did not answer: " + cause, 5));
            return;
          }
          FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
              HttpResponseStatus.valueOf(resp.statusCode()), Unpooled.wrappedBuffer(resp.body()));
          resp.headers().firstValue("content-type").ifPresent(v -> r.headers().set(HttpHeaderNames.CONTENT_TYPE, v));
          resp.headers().firstValue("retry-after").ifPresent(v -> r.headers().set(HttpHeaderNames.RETRY_AFTER, v));
          HttpUtil.setContentLength(r, resp.body().length);
          ex.respond(r);
        });
  }
}
