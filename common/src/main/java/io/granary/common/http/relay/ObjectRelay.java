package io.granary.common.http.relay;

import io.granary.common.error.ApiException;
import io.granary.common.error.GatewayTimeoutException;
import io.granary.common.error.ServiceUnavailableException;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.common.http.client.UpstreamListener;
import io.granary.common.http.client.UpstreamPool;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Streams one request to the owning target and its answer back (the proxy's stream-through mode). Both
 * connections run on the client connection's event loop. Bytes pass as buffer slices, never copied to the heap,
 * and never pile up: while the target cannot take more, the proxy stops reading the client's body; while the
 * client cannot take more, it stops reading the target's answer.
 *
 * <p>The upstream body is always chunked and its last chunk is sent only after {@link RequestBody#finish} has
 * verified the payload, so a body that fails verification (or a client that vanishes) never completes at the
 * target and nothing is stored.
 *
 * <p>A large answer body of known length goes from target to client by {@link BodySplice splice(2)} once the
 * bytes that arrived with the head are relayed: no copy through user space, which is most of a relay's cost.
 */
public final class ObjectRelay implements RequestHandler, UpstreamListener {
  private static final Logger log = LoggerFactory.getLogger(ObjectRelay.class);
  /**
   * Answer bodies at least this large are spliced; below it, setting up a splice costs more than copying.
   * {@code -Dgranary.relay.spliceMinBytes=N} moves the threshold (to measure where it lies on a machine).
   */
  static final long SPLICE_MIN_BYTES = Long.getLong("granary.relay.spliceMinBytes", 256 * 1024);

  private final UpstreamPool pool;
  private final InetSocketAddress target;
  private final HttpRequest upstreamHead;  // method, target URI and headers, signed for the target
  private final RequestBody body;          // passes through or decodes the client's body
  private final String targetId;           // for errors and logs
  private final Fallback fallback;         // null: every answer is relayed, every failure answered
  private final AnswerTimeout answerTimeout; // how long the whole request may wait for the answer head

  private HttpExchange ex;
  private Channel upstream;                // null until connected
  private final ArrayDeque<Object> early = new ArrayDeque<>(); // upstream messages queued before the connection is up
  private boolean requestSent;             // the upstream request is complete (last chunk written)
  private boolean answerStarted;           // the target's answer head was relayed
  private boolean upstreamKeepAlive;       // the target's answer lets its connection be reused
  private boolean finished;                // the exchange is over, one way or another
  private long spliceLeft = -1;            // body bytes the decoder has not relayed yet, when they will be spliced
  private ScheduledFuture<?> answerTimer;  // runs from the whole request's send to the answer head; null otherwise
  private boolean splicing;                // the rest of the body is being spliced

  /**
   * @param upstreamHead the request to send to the target (with {@code Transfer-Encoding: chunked} when a body
   *     follows); it must not carry a body itself
   */
  public ObjectRelay(UpstreamPool pool, InetSocketAddress target, String targetId, HttpRequest upstreamHead,
      RequestBody body) {
    this(pool, target, targetId, upstreamHead, body, null);
  }

  /**
   * A relay that may hand the exchange back before answering: see {@link Fallback}. Only for requests without a
   * body (GET, HEAD), which the fallback can still answer in full.
   */
  public ObjectRelay(UpstreamPool pool, InetSocketAddress target, String targetId, HttpRequest upstreamHead,
      RequestBody body, Fallback fallback) {
    this(pool, target, targetId, upstreamHead, body, fallback, AnswerTimeout.NONE);
  }

  /**
   * A relay that waits at most {@code answerTimeout} for the target's answer head once the whole request was sent:
   * then it answers 504 GatewayTimeout (or hands the exchange to {@code fallback}, when there is one) and closes
   * the upstream connection, whose late answer could otherwise be read as the answer to the next request on it.
   */
  public ObjectRelay(UpstreamPool pool, InetSocketAddress target, String targetId, HttpRequest upstreamHead,
      RequestBody body, Fallback fallback, AnswerTimeout answerTimeout) {
    this.pool = pool;
    this.target = target;
    this.targetId = targetId;
    this.upstreamHead = upstreamHead;
    this.body = body;
    this.fallback = fallback;
    this.answerTimeout = answerTimeout;
  }

  /** What a relay does instead when its upstream fails before answering, or answers what it should not relay. */
  public interface Fallback {
    /** Whether an answer with this head goes to the client; if not, the relay drops it and calls {@link #instead}. */
    boolean relays(HttpResponse head);

    /**
     * The upstream answered with a head {@link #relays} refused ({@code cause} null), or failed before answering
     * ({@code head} null). Nothing was sent to the client: the exchange now belongs to the fallback. Event loop.
     */
    void instead(HttpResponse head, Throwable cause);
  }

  @Override
  public void onRequest(HttpExchange exchange) {
    this.ex = exchange;
    if (ex.hasBody()) {
      ex.readRequestBody(false); // nothing to send it to yet
    }
    pool.acquire(ex.eventLoop(), target, this).addListener(f -> {
      if (!f.isSuccess() && fallback != null) {
        if (!finished) {
          abandon();
          fallback.instead(null, f.cause());
        }
        return;
      }
      if (!f.isSuccess()) {
        fail(new ServiceUnavailableException(ServiceUnavailableException.TARGET_OFFLINE,
            "target " + targetId + " at " + target + " cannot be reached: " + f.cause(), 2));
        return;
      }
      Channel ch = (Channel) f.getNow();
      if (finished) {
        pool.release(ch, false);
        return;
      }
      upstream = ch;
      upstream.write(upstreamHead);
      while (!early.isEmpty()) {
        upstream.write(early.poll());
      }
      upstream.flush();
      if (requestSent) {
        startAnswerTimer(); // the whole request arrived before the connection: it has all been written now
      }
      if (ex.hasBody()) {
        ex.readRequestBody(upstream.isWritable());
      }
    });
  }

  @Override
  public void onContent(HttpExchange exchange, HttpContent chunk) {
    if (finished) {
      return;
    }
    body.accept(chunk.content(), slice -> send(new DefaultHttpContent(slice)));
    if (chunk instanceof LastHttpContent) {
      HttpHeaders trailers;
      try {
        trailers = body.finish();
      } catch (ApiException e) {
        fail(e); // the target never sees the last chunk: it stores nothing
        return;
      }
      LastHttpContent last = new DefaultLastHttpContent();
      last.trailingHeaders().set(trailers);
      send(last);
      requestSent = true;
      if (upstream != null) {
        startAnswerTimer();
      }
    }
    if (upstream != null) {
      upstream.flush();
      if (!upstream.isWritable()) {
        ex.readRequestBody(false);
      }
    }
  }

  private void send(Object msg) {
    if (upstream == null) {
      early.add(msg);
    } else {
      upstream.write(msg);
    }
  }

  @Override
  public void onWritabilityChanged(boolean writable) {
    if (writable && !finished) {
      ex.readRequestBody(true);
    }
  }

  /** Starts waiting for the answer head, for at most the answer timeout. Event loop. */
  private void startAnswerTimer() {
    if (answerTimeout.limited() && answerTimer == null && !finished && !answerStarted) {
      answerTimer = ex.eventLoop().schedule(this::answerTimedOut, answerTimeout.limit().toNanos(),
          TimeUnit.NANOSECONDS);
    }
  }

  private void stopAnswerTimer() {
    if (answerTimer != null) {
      answerTimer.cancel(false);
      answerTimer = null;
    }
  }

  /** No answer head within the answer timeout of the whole request: 504, and the upstream connection closed. */
  private void answerTimedOut() {
    answerTimer = null;
    if (finished || answerStarted) {
      return;
    }
    long ms = answerTimeout.limit().toMillis();
    log.warn("node={} bucket={} object={} target {} did not answer a {} within {} ms of the whole request; "
        + "504 GatewayTimeout, its connection closed", ex.nodeId(), answerTimeout.bucket(), answerTimeout.object(),
        targetId, upstreamHead.method(), ms);
    GatewayTimeoutException e = new GatewayTimeoutException("target " + targetId + " did not answer within "
        + ms + " ms; the request may or may not have taken effect there");
    if (fallback != null) {
      abandon();
      fallback.instead(null, e);
      return;
    }
    fail(e);
  }

  @Override
  public void onResponse(HttpResponse head) {
    stopAnswerTimer();
    if (finished) {
      return;
    }
    if (fallback != null && !fallback.relays(head)) {
      abandon(); // the connection is closed rather than drained: its answer body may be any size
      fallback.instead(head, null);
      return;
    }
    upstreamKeepAlive = HttpUtil.isKeepAlive(head);
    HttpResponse out = new DefaultHttpResponse(head.protocolVersion(), head.status());
    out.headers().set(head.headers());
    out.headers().remove(HttpHeaderNames.CONNECTION).remove(HttpHeaderNames.KEEP_ALIVE);
    answerStarted = ex.startStream(out);
    if (!answerStarted) {
      abandon();
      return;
    }
    long length = HttpUtil.getContentLength(head, -1L);
    int status = head.status().code();
    if (length >= SPLICE_MIN_BYTES && (status == 200 || status == 206) && !ex.method().equals(HttpMethod.HEAD)
        && BodySplice.possible(upstream, ex.channel())) {
      spliceLeft = length;
    }
  }

  @Override
  public void onContent(HttpContent content) {
    if (finished || !answerStarted) {
      content.release();
      return;
    }
    if (content instanceof LastHttpContent) {
      finished = true;
      boolean reusable = requestSent && upstreamKeepAlive;
      ex.endStream((LastHttpContent) content);
      pool.release(upstream, reusable);
      upstream = null;
      return;
    }
    if (spliceLeft > 0) {
      spliceLeft -= content.content().readableBytes();
    }
    ex.streamContent(content); // flushed in onReadComplete: one write for all a read burst brought
    if (!ex.clientWritable()) {
      upstream.config().setAutoRead(false); // resumed in onClientWritabilityChanged
    }
  }

  @Override
  public void onReadComplete() {
    if (answerStarted && !finished) {
      ex.flushStream();
      if (spliceLeft > 0 && !splicing) {
        startSplice();
      }
    }
  }

  /** The rest of the answer body goes by splice(2); the decoder sees none of it. */
  private void startSplice() {
    splicing = true;
    Channel from = upstream;
    upstream.config().setAutoRead(true); // the splice reads, and pauses itself while the client is full
    BodySplice.splice(from, ex.channel(), spliceLeft, cause -> {
      splicing = false;
      if (finished || upstream != from) {
        return; // abandoned meanwhile: the client or the target went away
      }
      if (cause != null) {
        onFailure(cause);
        pool.release(from, false);
        return;
      }
      spliceLeft = 0;
      finished = true;
      ex.endStream(LastHttpContent.EMPTY_LAST_CONTENT);
      upstream = null;
      pool.releaseAfterBypass(from, requestSent && upstreamKeepAlive);
    });
  }

  @Override
  public void onClientWritabilityChanged(HttpExchange exchange, boolean writable) {
    if (splicing) {
      return; // the splice manages reading the target itself
    }
    if (writable && upstream != null && !upstream.config().isAutoRead()) {
      upstream.config().setAutoRead(true);
      upstream.read();
    }
  }

  @Override
  public void onFailure(Throwable cause) {
    stopAnswerTimer();
    upstream = null; // already closed
    if (!finished && !answerStarted && fallback != null) {
      abandon();
      fallback.instead(null, cause);
      return;
    }
    if (!finished) {
      log.debug("node={} relay to {} failed: {}", ex.nodeId(), targetId, cause.toString());
      fail(new ServiceUnavailableException(ServiceUnavailableException.TARGET_OFFLINE,
          "target " + targetId + " failed during the request: " + cause, 2));
    }
  }

  @Override
  public void onAbort(HttpExchange exchange, Throwable cause) {
    abandon(); // the client is gone or its body broke: the target must not complete the request
  }

  @Override
  public void onClientClosed(HttpExchange exchange) {
    abandon();
  }

  /** Answers {@code e} if nothing was answered yet, else cuts the client connection; drops the upstream. */
  private void fail(ApiException e) {
    boolean started = answerStarted;
    abandon();
    if (started) {
      ex.abortConnection();
    } else {
      ex.sendError(e);
    }
  }

  private void abandon() {
    stopAnswerTimer();
    finished = true;
    while (!early.isEmpty()) {
      ReferenceCountUtil.release(early.poll());
    }
    if (upstream != null) {
      Channel ch = upstream;
      upstream = null;
      pool.release(ch, false);
    }
  }
}
