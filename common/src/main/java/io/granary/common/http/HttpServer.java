package io.granary.common.http;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.codec.http.HttpRequest;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A Netty HTTP/1.1 server for one node. Each connection's pipeline is built by {@link HttpChannelInitializer}, in
 * order: {@code head-timeout} ({@link HeadTimeout}: a deadline for each request head), {@code http} (codec),
 * {@code framing} ({@link RequestFraming}: refuses requests whose framing cannot be trusted), {@code idle} (reader
 * idle: a body that brings no bytes for the body timeout; all idle: no traffic either way for the idle timeout),
 * {@code dispatch} ({@link HttpDispatcher}, which acts on both). Before the pipeline is built, {@link ConnectionCap}
 * decides whether the connection is served. The limits are {@link HttpLimits}.
 */
public final class HttpServer implements AutoCloseable {
  /** Longest request line: a 1024-byte object name percent-encoded is 3 KiB; leave room for query and bucket. */
  public static final int MAX_INITIAL_LINE = 16 * 1024;
  public static final int MAX_HEADER_SIZE = 32 * 1024;
  /** Body chunks handed to handlers are at most this large. */
  public static final int MAX_CHUNK_SIZE = 256 * 1024;

  private final EventLoopGroup boss;
  private final EventLoopGroup workers;
  private final Channel channel;
  private final Transport transport;
  private final ConnectionCap cap;
  private final EdgeCounters counters;
  private final OpenConnections connections; // for drain()

  private HttpServer(EventLoopGroup boss, EventLoopGroup workers, Channel channel, Transport transport,
      ConnectionCap cap, EdgeCounters counters, OpenConnections connections) {
    this.connections = connections;
    this.boss = boss;
    this.workers = workers;
    this.channel = channel;
    this.transport = transport;
    this.cap = cap;
    this.counters = counters;
  }

  /** Bytes queued for a client before it counts as unwritable (high), and when it is writable again (low). */
  static final WriteBufferWaterMark CLIENT_WATER_MARK = new WriteBufferWaterMark(256 * 1024, 512 * 1024);

  /**
   * Binds and starts serving, with the default head and body timeouts and connection cap.
   *
   * @param host address to bind (e.g. 127.0.0.1 or 0.0.0.0)
   * @param port port, 0 for any free port
   * @param workers event loops serving connections; also usable for client connections of this node
   * @param idleSeconds close a connection after this long with no bytes in either direction
   */
  public static HttpServer start(String host, int port, Router router, String nodeId, Transport transport,
      EventLoopGroup workers, int idleSeconds) throws InterruptedException {
    return start(host, port, router, nodeId, transport, workers, idleSeconds, false);
  }

  public static HttpServer start(String host, int port, Router router, String nodeId, Transport transport,
      EventLoopGroup workers, int idleSeconds, boolean spliceable) throws InterruptedException {
    return start(host, port, router, nodeId, transport, workers, idleSeconds, spliceable, ExchangeListener.NONE);
  }

  /**
   * @param spliceable whether client connections must be able to take bytes spliced from another connection
   *     (a proxy's relay), see {@link Transport#spliceable(ServerBootstrap)}
   * @param listener told of every answered request (request metrics), on the event loop
   */
  public static HttpServer start(String host, int port, Router router, String nodeId, Transport transport,
      EventLoopGroup workers, int idleSeconds, boolean spliceable, ExchangeListener listener)
      throws InterruptedException {
    HttpLimits limits = new HttpLimits(HttpLimits.DEFAULT_HEAD_TIMEOUT, HttpLimits.DEFAULT_BODY_TIMEOUT,
        Duration.ofSeconds(idleSeconds), HttpLimits.DEFAULT_MAX_CONNECTIONS);
    return start(host, port, router, nodeId, transport, workers, limits, spliceable, listener, req -> false);
  }

  /**
   * @param limits timeouts and the connection cap
   * @param clusterRequest whether a request was signed by another node of the cluster: only those are served on
   *     connections beyond the cap (the reserve)
   */
  public static HttpServer start(String host, int port, Router router, String nodeId, Transport transport,
      EventLoopGroup workers, HttpLimits limits, boolean spliceable, ExchangeListener listener,
      Predicate<HttpRequest> clusterRequest) throws InterruptedException {
    EdgeCounters counters = new EdgeCounters();
    ConnectionCap cap = new ConnectionCap(nodeId, limits.maxConnections(), limits.reserve(), counters);
    EventLoopGroup boss = transport.newGroup(1, "http-accept");
    OpenConnections connections = new OpenConnections(nodeId);
    ServerBootstrap b = new ServerBootstrap()
        .group(boss, workers)
        .channel(transport.serverChannel())
        .option(ChannelOption.SO_BACKLOG, 1024)
        .option(ChannelOption.SO_REUSEADDR, true)
        .handler(new AcceptFailures(nodeId, counters))
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
        // Room for a relayed burst (a proxy streams what it reads from a target): with Netty's 64 KiB default,
        // every 64 KiB read would stop and restart reading the target, two epoll_ctl calls each time.
        .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, CLIENT_WATER_MARK)
        .childHandler(new HttpChannelInitializer(router, nodeId, listener, limits, cap, counters, clusterRequest,
            connections));
    if (limits.sendBuffer() > 0) {
      b.childOption(ChannelOption.SO_SNDBUF, limits.sendBuffer()); // see HttpLimits.DEFAULT_SEND_BUFFER
    }
    if (spliceable) {
      transport.spliceable(b);
    }
    try {
      Channel ch = b.bind(new InetSocketAddress(host, port)).sync().channel();
      return new HttpServer(boss, workers, ch, transport, cap, counters, connections);
    } catch (Exception e) {
      boss.shutdownGracefully(0, 0, TimeUnit.SECONDS);
      throw e;
    }
  }

  public int port() {
    return ((InetSocketAddress) channel.localAddress()).getPort();
  }

  public Transport transport() {
    return transport;
  }

  /** Connections open now, the cap's reserve included. */
  public int openConnections() {
    return cap.open();
  }

  /** Connections refused and requests cut off by a timeout, since the start. */
  public EdgeCounters edgeCounters() {
    return counters;
  }

  /**
   * A graceful stop: stops accepting, closes idle connections, lets each busy one finish the request it is serving
   * (its answer says {@code Connection: close}) and waits up to {@code grace} for them all to close. Blocks the
   * caller, so never call it on an event loop.
   *
   * @return connections still open when {@code grace} ran out (0: every request finished)
   */
  public int drain(Duration grace) {
    channel.close().awaitUninterruptibly();
    return connections.drain(grace);
  }

  /** Stops accepting; open connections close with the worker group, which the caller owns. */
  @Override
  public void close() {
    channel.close().awaitUninterruptibly();
    boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
  }

  /** Exposed for callers that share the worker group with client connections. */
  public EventLoopGroup workers() {
    return workers;
  }
}
