package io.granary.target.coldget;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.granary.backend.BackendException;
import io.granary.backend.PlainHttpGet;
import io.granary.backend.PlainHttpReads;
import io.granary.backend.RemoteObject;
import io.granary.common.http.Transport;
import io.granary.common.http.client.UpstreamPool;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A cold GET's first read sent from an event loop ({@link LoopGet}) and consumed by another thread
 * ({@link LoopFedRead}), against a real HTTP server on loopback whose answers misbehave on request: the body arrives
 * whole and in order, a slow reader holds the remote back instead of filling memory, and a broken, stalled, refused
 * or missing answer surfaces as the failure the fetch resumes from or falls back on.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LoopGetTest {
  private static final int CHUNK = 64 << 10;
  /** What every body is made of, over and over: a CHUNK-long pattern (fast to send, not all one byte value). */
  private static final byte[] PATTERN = new byte[CHUNK];

  static {
    for (int i = 0; i < CHUNK; i++) {
      PATTERN[i] = (byte) (i * 31 + (i >>> 11));
    }
  }

  private static EventLoopGroup group;
  private static Channel server;
  private static InetSocketAddress address;
  private static UpstreamPool pool;
  private static final AtomicInteger connections = new AtomicInteger();

  @BeforeAll
  static void start() throws InterruptedException {
    Transport transport = Transport.best();
    group = transport.newGroup(2, "loop-get-test");
    server = new ServerBootstrap().group(group).channel(transport.serverChannel())
        .childOption(io.netty.channel.ChannelOption.WRITE_BUFFER_WATER_MARK,
            new io.netty.channel.WriteBufferWaterMark(1 << 20, 4 << 20))
        .childHandler(new ChannelInitializer<>() {
          @Override
          protected void initChannel(Channel ch) {
            connections.incrementAndGet();
            ch.pipeline().addLast(new HttpServerCodec(), new Misbehaving());
          }
        }).bind("127.0.0.1", 0).sync().channel();
    address = (InetSocketAddress) server.localAddress();
    pool = new UpstreamPool(transport, 4, 16);
  }

  @AfterAll
  static void stop() throws InterruptedException {
    pool.close();
    server.close().sync();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
  }

  @Test
  void slowReader_holdsTheRemoteBack_andGetsEveryByte() throws Exception {
    int size = 16 << 20;
    LoopFedRead read = send("/stream/" + size, Duration.ofSeconds(10)).get(10, TimeUnit.SECONDS);
    assertThat(read.length()).isEqualTo(size);
    MessageDigest md = MessageDigest.getInstance("SHA-256");
    ByteBuffer buf = ByteBuffer.allocateDirect(256 << 10);
    long total = 0;
    for (int reads = 0; ; reads++) {
      buf.clear();
      int n = read.read(buf);
      if (n < 0) {
        break;
      }
      buf.flip();
      md.update(buf);
      total += n;
      if (reads < 40) {
        Thread.sleep(2); // a slow disk at first: the remote must wait, not memory grow
      }
    }
    read.close();
    assertThat(total).isEqualTo(size);
    assertThat(HexFormat.of().formatHex(md.digest())).isEqualTo(sha256Of(size));
    assertThat(read.pauses()).as("times the loop stopped reading").isPositive();
    // At most one read of the connection (256 KiB) past the mark at which the loop stops reading.
    assertThat(read.mostQueued()).isLessThanOrEqualTo(LoopFedRead.HIGH + UpstreamPool.MAX_CHUNK);
  }

  @Test
  void completeBodies_leaveTheConnectionForTheNextRead() throws Exception {
    readWhole(send("/stream/100000", Duration.ofSeconds(10)).get(10, TimeUnit.SECONDS));
    Thread.sleep(100); // the connection goes back to the pool on its loop
    int before = connections.get();
    readWhole(send("/stream/100000", Duration.ofSeconds(10)).get(10, TimeUnit.SECONDS));
    assertThat(connections.get()).as("new connections for the second read").isEqualTo(before);
  }

  @Test
  void bodyThatBreaksOff_isTruncated() throws Exception {
    LoopFedRead read = send("/truncate/1000000", Duration.ofSeconds(10)).get(10, TimeUnit.SECONDS);
    assertThatThrownBy(() -> readWhole(read)).isInstanceOfSatisfying(BackendException.class,
        e -> assertThat(e.kind()).isEqualTo(BackendException.Kind.TRUNCATED));
  }

  @Test
  void bodyThatStalls_isUnavailable_afterTheReadTimeout() throws Exception {
    LoopFedRead read = send("/stall/1000000", Duration.ofMillis(300)).get(10, TimeUnit.SECONDS);
    long t0 = System.nanoTime();
    assertThatThrownBy(() -> readWhole(read)).isInstanceOfSatisfying(BackendException.class,
        e -> assertThat(e.kind()).isEqualTo(BackendException.Kind.UNAVAILABLE));
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
  }

  @Test
  void errorAnswer_failsWithTheBackendsVerdict() {
    assertThatThrownBy(() -> send("/error/503", Duration.ofSeconds(10)).get(10, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause().isInstanceOfSatisfying(BackendException.class, e -> {
          assertThat(e.kind()).isEqualTo(BackendException.Kind.UNAVAILABLE);
          assertThat(e.getMessage()).contains("SlowDown");
        });
  }

  @Test
  void serverThatNeverAnswers_isNoAnswer_afterTheReadTimeout() {
    long t0 = System.nanoTime();
    assertThatThrownBy(() -> send("/silent/0", Duration.ofMillis(300)).get(10, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause().isInstanceOf(LoopGet.NoAnswer.class);
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
  }

  @Test
  void noServer_isNoAnswer() throws Exception {
    InetSocketAddress closed;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      closed = new InetSocketAddress("127.0.0.1", s.getLocalPort());
    }
    CompletableFuture<LoopFedRead> f = LoopGet.send(pool, group.next(), closed, new TestBackend(),
        get("/stream/10", Duration.ofSeconds(5)));
    assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS)).cause().isInstanceOf(LoopGet.NoAnswer.class);
  }

  // ---- helpers

  private static CompletableFuture<LoopFedRead> send(String target, Duration timeout) {
    return LoopGet.send(pool, group.next(), address, new TestBackend(), get(target, timeout));
  }

  private static PlainHttpGet get(String target, Duration timeout) {
    return new PlainHttpGet("b", "k", 0, -1, "127.0.0.1", address.getPort(), target,
        List.of(Map.entry("Host", "127.0.0.1:" + address.getPort())), timeout, "GET test" + target);
  }

  private static void readWhole(LoopFedRead read) throws IOException {
    ByteBuffer buf = ByteBuffer.allocate(64 << 10);
    try {
      while (read.read(buf.clear()) >= 0) {
        // discard
      }
    } finally {
      read.close();
    }
  }

  private static String sha256Of(long size) throws Exception {
    MessageDigest md = MessageDigest.getInstance("SHA-256");
    for (long off = 0; off < size; off += CHUNK) {
      md.update(PATTERN, 0, (int) Math.min(CHUNK, size - off));
    }
    return HexFormat.of().formatHex(md.digest());
  }

  /** The backend's judgement of an answer, as S3Backend gives it: the promised length, and a status's meaning. */
  private static final class TestBackend implements PlainHttpReads {
    @Override
    public PlainHttpGet prepare(String bucket, String key, long offset, long length) {
      throw new UnsupportedOperationException("the test builds its requests itself");
    }

    @Override
    public Answer answer(PlainHttpGet get, Map<String, List<String>> headers) {
      long length = Long.parseLong(headers.get("content-length").get(0));
      return new Answer(new RemoteObject(get.key(), length, null, null, 0, null, null, null, Map.of()), length);
    }

    @Override
    public BackendException failure(PlainHttpGet get, int status, String bodyStart) {
      return new BackendException(status >= 500 ? BackendException.Kind.UNAVAILABLE : BackendException.Kind.OTHER,
          status, get.what() + ": " + status + " " + bodyStart);
    }
  }

  /** Answers {@code /MODE/N}: stream N bytes, truncate after half, stall after 100 KB, answer status N, or never. */
  private static final class Misbehaving extends SimpleChannelInboundHandler<Object> {
    private long size;
    private long sent;
    private long stopAt;
    private boolean pumping; // a write that fills the buffer calls channelWritabilityChanged from inside pump

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Object msg) {
      if (!(msg instanceof HttpRequest request)) {
        return;
      }
      String[] parts = request.uri().split("/");
      String mode = parts[1];
      long n = Long.parseLong(parts[2]);
      switch (mode) {
        case "silent" -> { }
        case "error" -> {
          ByteBuf xml = Unpooled.copiedBuffer("<Error><Code>SlowDown</Code></Error>", StandardCharsets.UTF_8);
          DefaultFullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
              HttpResponseStatus.valueOf((int) n), xml);
          r.headers().set(HttpHeaderNames.CONTENT_LENGTH, xml.readableBytes());
          ctx.writeAndFlush(r);
        }
        default -> {
          DefaultHttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
          head.headers().set(HttpHeaderNames.CONTENT_LENGTH, n);
          ctx.write(head);
          size = n;
          sent = 0;
          stopAt = mode.equals("truncate") ? n / 2 : mode.equals("stall") ? 100_000 : n;
          pump(ctx);
        }
      }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
      pump(ctx);
    }

    private void pump(ChannelHandlerContext ctx) {
      if (pumping) {
        return;
      }
      pumping = true;
      try {
        do {
          fill(ctx); // its flush may make the channel writable again, and the event then finds pumping set
        } while (sent < stopAt && ctx.channel().isWritable());
      } finally {
        pumping = false;
      }
    }

    private void fill(ChannelHandlerContext ctx) {
      while (sent < stopAt && ctx.channel().isWritable()) {
        int n = (int) Math.min(CHUNK, stopAt - sent); // sent is a multiple of CHUNK until the last piece
        sent += n;
        ctx.write(Unpooled.wrappedBuffer(PATTERN, 0, n));
      }
      if (sent == size && size > 0 && stopAt == size) {
        ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
        size = 0;
      } else if (sent == stopAt && stopAt < size && size == 2 * stopAt) {
        ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE); // truncate
      } else {
        ctx.flush();
      }
    }
  }
}
