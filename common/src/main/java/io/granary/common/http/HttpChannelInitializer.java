package io.granary.common.http;

import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.timeout.IdleStateHandler;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Builds the pipeline of each accepted connection, once {@link ConnectionCap} has admitted it (a refused one is
 * closed here). Stages, in order: {@code head-timeout} ({@link HeadTimeout}), {@code http} (codec), {@code framing}
 * ({@link RequestFraming}), {@code idle} (reader idle after the body timeout, all idle after the idle timeout),
 * {@code dispatch} ({@link HttpDispatcher}).
 */
final class HttpChannelInitializer extends ChannelInitializer<Channel> {
  private final Router router;
  private final String nodeId;
  private final ExchangeListener listener;
  private final HttpLimits limits;
  private final ConnectionCap cap;
  private final EdgeCounters counters;
  private final Predicate<HttpRequest> onReserve; // what a connection beyond the cap serves
  private final OpenConnections connections; // where admitted connections are kept for a drain; null: nowhere

  /** @param clusterRequest requests signed by another node of the cluster: served on the cap's reserve */
  HttpChannelInitializer(Router router, String nodeId, ExchangeListener listener, HttpLimits limits,
      ConnectionCap cap, EdgeCounters counters, Predicate<HttpRequest> clusterRequest) {
    this(router, nodeId, listener, limits, cap, counters, clusterRequest, null);
  }

  /** @param connections the server's connections: each admitted one joins it (and leaves it when it closes) */
  HttpChannelInitializer(Router router, String nodeId, ExchangeListener listener, HttpLimits limits,
      ConnectionCap cap, EdgeCounters counters, Predicate<HttpRequest> clusterRequest, OpenConnections connections) {
    this.connections = connections;
    this.router = router;
    this.nodeId = nodeId;
    this.listener = listener;
    this.limits = limits;
    this.cap = cap;
    this.counters = counters;
    this.onReserve = req -> {
      if (clusterRequest.test(req)) {
        return true;
      }
      cap.refused();
      return false;
    };
  }

  @Override
  protected void initChannel(Channel ch) {
    ConnectionCap.Admission admission = cap.admit(ch);
    if (admission == ConnectionCap.Admission.REFUSE) {
      ch.close(); // unanswered: reading even a request would hold a descriptor the node cannot spare
      return;
    }
    HeadTimeout head = new HeadTimeout(limits.headTimeout().toNanos(), counters);
    ch.pipeline()
        .addLast("head-timeout", head)
        .addLast("http", new HttpServerCodec(HttpServer.MAX_INITIAL_LINE, HttpServer.MAX_HEADER_SIZE,
            HttpServer.MAX_CHUNK_SIZE))
        .addLast("framing", new RequestFraming())
        .addLast("idle", new IdleStateHandler(true, limits.bodyTimeout().toMillis(), 0,
            limits.idleTimeout().toMillis(), TimeUnit.MILLISECONDS))
        .addLast("dispatch", new HttpDispatcher(router, nodeId, listener, head,
            admission == ConnectionCap.Admission.RESERVE ? onReserve : null, counters, limits));
    if (connections != null) {
      connections.add(ch);
    }
  }
}
