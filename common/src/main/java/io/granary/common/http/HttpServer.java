package io.granary.common.http;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.timeout.IdleStateHandler;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * A Netty HTTP/1.1 server for one node. Pipeline, in order: {@code http} (codec), {@code framing}
 * ({@link RequestFraming}: refuses requests whose framing cannot be trusted), {@code idle} (closes connections with
 * no traffic either way), {@code dispatch} ({@link HttpDispatcher}).
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

  private HttpServer(EventLoopGroup boss, EventLoopGroup workers, Channel channel, Transport transport) {
    this.boss = boss;
    this.workers = workers;
    this.channel = channel;
    this.transport = transport;
  }

  /**
   * Binds and starts serving.
   *
   * @param host address to bind (e.g. 127.0.0.1 or 0.0.0.0)
   * @param port port, 0 for any free port
   * @param workers event loops serving connections; also usable for client connections of this node
   * @param idleSeconds close a connection after this long with no bytes in either direction
   */
  /** Bytes queued for a client before it counts as unwritable (high), and when it is writable again (low). */
  static final WriteBufferWaterMark CLIENT_WATER_MARK = new WriteBufferWaterMark(256 * 1024, 512 * 1024);

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
    EventLoopGroup boss = transport.newGroup(1, "http-accept");
    ServerBootstrap b = new ServerBootstrap()
        .group(boss, workers)
        .channel(transport.serverChannel())
        .option(ChannelOption.SO_BACKLOG, 1024)
        .option(ChannelOption.SO_REUSEADDR, true)
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
        // Room for a relayed burst (a proxy streams what it reads from a target): with Netty's 64 KiB default,
        // every 64 KiB read would stop and restart reading the target, two epoll_ctl calls each time.
        .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, CLIENT_WATER_MARK)
        .childHandler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            ch.pipeline()
                .addLast("http", new HttpServerCodec(MAX_INITIAL_LINE, MAX_HEADER_SIZE, MAX_CHUNK_SIZE))
                .addLast("framing", new RequestFraming())
                .addLast("idle", new IdleStateHandler(true, 0, 0, idleSeconds, TimeUnit.SECONDS))
                .addLast("dispatch", new HttpDispatcher(router, nodeId, listener));
          }
        });
    if (spliceable) {
      transport.spliceable(b);
    }
    try {
      Channel ch = b.bind(new InetSocketAddress(host, port)).sync().channel();
      return new HttpServer(boss, workers, ch, transport);
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
