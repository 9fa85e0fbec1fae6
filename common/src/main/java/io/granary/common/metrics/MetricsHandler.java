package io.granary.common.metrics;

import io.granary.common.api.ApiPaths;
import io.granary.common.error.InternalErrorException;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.common.http.Router;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import java.io.IOException;

/**
 * {@code GET /metrics}: the node's registry in the Prometheus text format (0.0.4). Runs on the event loop: the
 * scrape reads counters and callbacks that do no I/O beyond a statvfs, and the body is a few KiB.
 */
public final class MetricsHandler implements RequestHandler {
  private static final PrometheusTextFormatWriter WRITER = PrometheusTextFormatWriter.create();

  private final NodeMetrics metrics;

  public MetricsHandler(NodeMetrics metrics) {
    this.metrics = metrics;
  }

  /**
   * Whether {@code ex} is a scrape: {@code GET /metrics} without a query (so that a proxy's S3 API keeps
   * {@code GET /metrics?list-type=2}, the listing of a bucket named "metrics"). Like {@code /v1/health} it needs no
   * authentication.
   */
  public static boolean matches(HttpExchange ex) {
    return ex.path().raw().equals(ApiPaths.METRICS) && ex.path().rawQuery().isEmpty()
        && ex.method().equals(HttpMethod.GET);
  }

  @Override
  public void onRequest(HttpExchange ex) {
    ByteBuf buf = ex.alloc().buffer(8192);
    try (ByteBufOutputStream out = new ByteBufOutputStream(buf)) {
      WRITER.write(out, metrics.registry().scrape());
    } catch (IOException | RuntimeException e) {
      buf.release();
      ex.sendError(new InternalErrorException("writing metrics failed", e));
      return;
    }
    FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, buf);
    r.headers().set(HttpHeaderNames.CONTENT_TYPE, PrometheusTextFormatWriter.CONTENT_TYPE);
    HttpUtil.setContentLength(r, buf.readableBytes());
    ex.respond(r);
  }

  /**
   * {@code router} with scrapes answered first, before any authentication or S3 routing it does. Both node kinds
   * serve {@code /metrics} this way.
   */
  public static Router route(Router router, NodeMetrics metrics) {
    return ex -> matches(ex) ? new MetricsHandler(metrics) : router.route(ex);
  }
}
