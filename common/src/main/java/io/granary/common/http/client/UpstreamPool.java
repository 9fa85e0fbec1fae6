package io.granary.common.http.client;

import io.granary.common.http.Transport;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.pool.AbstractChannelPoolHandler;
import io.netty.channel.pool.ChannelHealthChecker;
import io.netty.channel.pool.FixedChannelPool;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import java.net.InetSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;

/**
 * Keep-alive HTTP/1.1 connections to other nodes, pooled per (event loop, address). A relay acquires a connection
 * on the event loop of the client connection it serves, so both sides of a relay run on one thread and pass
 * buffers without locks or hops. Each pool is bounded; acquisitions beyond the bound wait in a bounded queue.
 */
public final class UpstreamPool implements AutoCloseable {
  private static final AttributeKey<UpstreamListener> LISTENER = AttributeKey.valueOf("granary.upstream.listener");
  /** Body chunks read from upstream are at most this large. */
  public static final int MAX_CHUNK = 256 * 1024;
  /** The largest buffer one read of an upstream connection fills. */
  static final int MAX_READ = 256 * 1024;

  private final Transport transport;
  private final int maxConnections;
  private final int maxPending;
  private final boolean spliceable;
  private final Map<Key, FixedChannelPool> pools = new ConcurrentHashMap<>();

  private record Key(EventLoop loop, InetSocketAddress address) {
  }

  /**
   * @param maxConnections most open connections per event loop and address
   * @param maxPending most acquisitions waiting for a connection per event loop and address
   */
  public UpstreamPool(Transport transport, int maxConnections, int maxPending) {
    this(transport, maxConnections, maxPending, false);
  }

  /**
   * @param spliceable whether connections must be able to splice(2) their bytes to other connections (a proxy's
   *     relay), see {@link Transport#spliceable(Bootstrap)}
   */
  public UpstreamPool(Transport transport, int maxConnections, int maxPending, boolean spliceable) {
    this.transport = transport;
    this.maxConnections = maxConnections;
    this.maxPending = maxPending;
    this.spliceable = spliceable;
  }

  /** A connection to {@code address} on {@code loop}; its events go to {@code listener} until released. */
  public Future<Channel> acquire(EventLoop loop, InetSocketAddress address, UpstreamListener listener) {
    FixedChannelPool pool = pools.computeIfAbsent(new Key(loop, address), this::newPool);
    return pool.acquire().addListener(f -> {
      if (f.isSuccess()) {
        ((Channel) f.getNow()).attr(LISTENER).set(listener);
      }
    });
  }

  /**
   * Returns a connection whose response body went around its HTTP decoder (spliced to another connection): the
   * decoder, still waiting for that body, is replaced by a fresh one before the connection is reused.
   */
  public void releaseAfterBypass(Channel ch, boolean reusable) {
    ch.attr(LISTENER).set(null); // bytes the old decoder still holds would be a desync: Dispatch closes on them
    if (reusable && ch.isActive()) {
      ch.pipeline().replace("http", "http", newCodec());
    }
    release(ch, reusable);
  }

  /** Returns a connection after a complete exchange; {@code reusable} false closes it instead. */
  public void release(Channel ch, boolean reusable) {
    ch.attr(LISTENER).set(null);
    if (!reusable) {
      ch.close();
    }
    if (!ch.config().isAutoRead()) {
      ch.config().setAutoRead(true);
    }
    FixedChannelPool pool = pools.get(new Key(ch.eventLoop(), (InetSocketAddress) ch.remoteAddress()));
    if (pool != null) {
      pool.release(ch);
    } else {
      ch.close();
    }
  }

  private FixedChannelPool newPool(Key key) {
    Bootstrap b = new Bootstrap().group(key.loop()).channel(transport.clientChannel())
        .option(ChannelOption.TCP_NODELAY, true)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 5000)
        // Reads of up to 256 KiB: a relayed object body arrives in a few large reads, not many 64 KiB ones.
        .option(ChannelOption.RCVBUF_ALLOCATOR, new AdaptiveRecvByteBufAllocator(512, 16 * 1024, MAX_READ))
        .remoteAddress(key.address());
    if (spliceable) {
      transport.spliceable(b);
    }
    return new FixedChannelPool(b, new AbstractChannelPoolHandler() {
      @Override
      public void channelCreated(Channel ch) {
        ch.pipeline().addLast("http", newCodec())
            .addLast("upstream", new Dispatch());
      }
    }, ChannelHealthChecker.ACTIVE, FixedChannelPool.AcquireTimeoutAction.FAIL, 10_000, maxConnections, maxPending,
        true, true);
  }

  private static HttpClientCodec newCodec() {
    return new HttpClientCodec(4096, 32 * 1024, MAX_CHUNK);
  }

  /**
   * Routes a connection's events to its current listener; drops them when it has none (idle in the pool). A
   * connection that fails or closes under a listener is returned to its pool here, after telling the listener: the
   * pool's count of connections in use must not keep a dead one.
   */
  private final class Dispatch extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      UpstreamListener l = ctx.channel().attr(LISTENER).get();
      if (l == null) {
        ReferenceCountUtil.release(msg); // a stray message on an idle connection: it cannot be reused safely
        ctx.close();
        return;
      }
      if (msg instanceof HttpResponse head) {
        l.onResponse(head);
      }
      if (msg instanceof HttpContent content) {
        l.onContent(content);
      } else {
        ReferenceCountUtil.release(msg);
      }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
      UpstreamListener l = ctx.channel().attr(LISTENER).get();
      if (l != null) {
        l.onReadComplete();
      }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
      UpstreamListener l = ctx.channel().attr(LISTENER).get();
      if (l != null) {
        l.onWritabilityChanged(ctx.channel().isWritable());
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      UpstreamListener l = ctx.channel().attr(LISTENER).getAndSet(null);
      if (l != null) {
        l.onFailure(new ClosedChannelException());
        release(ctx.channel(), false);
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      UpstreamListener l = ctx.channel().attr(LISTENER).getAndSet(null);
      if (l != null) {
        l.onFailure(cause);
        release(ctx.channel(), false);
      } else {
        ctx.close();
      }
    }
  }

  /**
   * Closes every pooled connection. A pool whose event loop has already shut down (a group its user closed first,
   * such as the rebalancer's send loops) is skipped: the loop closed its connections as it ended.
   */
  @Override
  public void close() {
    pools.forEach((key, pool) -> {
      if (!key.loop().isShuttingDown()) {
        try {
          pool.close();
        } catch (RejectedExecutionException e) {
          // the loop began shutting down since the check: its connections close with it
        }
      }
    });
    pools.clear();
  }
}
