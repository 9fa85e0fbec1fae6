package io.granary.proxy.membership;

import io.granary.clustermap.ClusterJson;
import io.granary.common.api.ApiPaths;
import io.granary.common.auth.ClusterSigner;
import io.granary.common.http.Transport;
import io.granary.common.membership.ClusterMetadata;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.zip.CRC32C;

/**
 * The lightweight nodes of {@link MetasyncBench}, in the bench's process: one loopback listener per node, so each node
 * has its own URL and connections as in a cluster, all served by a few Netty event-loop threads. Each reads the
 * whole body, checks the cluster signature when the request carries one, checks that the body is cluster metadata
 * and answers 200 with the versions, as a target's {@code PUT /v1/metasync} does, without persisting anything.
 *
 * <p>A real target parses every body on its own cores; here the nodes share the sender's, so a body is parsed only
 * the first time its bytes (CRC32C and length) are seen and looked up after that. Test scope, not the product.
 */
final class MetasyncReceivers implements AutoCloseable {
  private final EventLoopGroup group;
  private final List<Channel> listeners = new ArrayList<>();
  private final List<String> urls = new ArrayList<>();
  private final ClusterSigner signer;
  /** Map version of the last body each node answered, by node index. */
  private final AtomicLongArray lastVersion;
  /** System.nanoTime() of each node's last answer, by node index. */
  private final AtomicLongArray answeredAt;
  private final AtomicInteger signedRequests = new AtomicInteger();
  private final AtomicInteger refused = new AtomicInteger();
  /** Bodies parsed once: (CRC32C << 32 | length) to map version. */
  private final Map<Long, Long> versions = new ConcurrentHashMap<>();

  private MetasyncReceivers(int nodes, ClusterSigner signer, int threads) {
    this.group = Transport.best().newGroup(threads, "receivers");
    this.signer = signer;
    this.lastVersion = new AtomicLongArray(nodes);
    this.answeredAt = new AtomicLongArray(nodes);
  }

  /** Starts {@code nodes} listeners on 127.0.0.1, served by {@code threads} event loops. */
  static MetasyncReceivers start(int nodes, ClusterSigner signer, int threads) throws InterruptedException {
    MetasyncReceivers r = new MetasyncReceivers(nodes, signer, threads);
    Transport t = Transport.best();
    for (int i = 0; i < nodes; i++) {
      int node = i;
      Channel ch = new ServerBootstrap().group(r.group).channel(t.serverChannel())
          .childHandler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel c) {
              c.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(64 << 20), r.new Node(node));
            }
          })
          .bind("127.0.0.1", 0).sync().channel();
      r.listeners.add(ch);
      r.urls.add("http://127.0.0.1:" + ((InetSocketAddress) ch.localAddress()).getPort());
    }
    return r;
  }

  String url(int node) {
    return urls.get(node);
  }

  long lastVersion(int node) {
    return lastVersion.get(node);
  }

  long answeredAt(int node) {
    return answeredAt.get(node);
  }

  int signedRequests() {
    return signedRequests.get();
  }

  int refused() {
    return refused.get();
  }

  @Override
  public void close() {
    for (Channel ch : listeners) {
      ch.close();
    }
    group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
  }

  /** One node's metasync endpoint; runs on its connection's event loop. */
  private final class Node extends SimpleChannelInboundHandler<FullHttpRequest> {
    private final int index;

    Node(int index) {
      this.index = index;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
      if (!req.method().equals(HttpMethod.PUT) || !req.uri().equals(ApiPaths.METASYNC)) {
        answer(ctx, HttpResponseStatus.NOT_FOUND, "{}");
        return;
      }
      if (req.headers().contains(ClusterSigner.SIGNATURE_HEADER)) { // the reference sends none
        if (!signer.verifyHeaders("PUT", req.uri(), req.headers())) {
          refused.incrementAndGet();
          answer(ctx, HttpResponseStatus.UNAUTHORIZED, "{\"code\":\"Unauthorized\",\"message\":\"bad signature\"}");
          return;
        }
        signedRequests.incrementAndGet();
      }
      ByteBuf body = req.content();
      CRC32C crc = new CRC32C();
      for (ByteBuffer b : body.nioBuffers()) {
        crc.update(b);
      }
      long version = versions.computeIfAbsent(crc.getValue() << 32 | body.readableBytes(), k -> parse(body));
      lastVersion.set(index, version);
      answeredAt.set(index, System.nanoTime());
      answer(ctx, HttpResponseStatus.OK, "{\"mapVersion\":" + version + "}");
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      refused.incrementAndGet(); // e.g. a body that is not cluster metadata: the sender sees the connection fail
      ctx.close();
    }

    private static long parse(ByteBuf body) {
      try (ByteBufInputStream in = new ByteBufInputStream(body.duplicate())) {
        return ClusterJson.mapper().readValue((java.io.InputStream) in, ClusterMetadata.class).map().version();
      } catch (IOException e) {
        throw new UncheckedIOException("not cluster metadata", e);
      }
    }

    private static void answer(ChannelHandlerContext ctx, HttpResponseStatus status, String json) {
      FullHttpResponse resp = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
          Unpooled.copiedBuffer(json, StandardCharsets.UTF_8));
      resp.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON)
          .setInt(HttpHeaderNames.CONTENT_LENGTH, resp.content().readableBytes());
      ctx.writeAndFlush(resp);
    }
  }
}
