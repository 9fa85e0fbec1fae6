package io.granary.common.http;

import io.granary.common.error.ApiException;
import io.granary.common.error.BadRequestException;
import io.granary.common.error.IncompleteBodyException;
import io.granary.common.error.RequestTimeoutException;
import io.granary.common.error.ServiceUnavailableException;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Feeds decoded HTTP messages of one connection to per-request {@link RequestHandler}s. Pipeline position: after
 * {@code HttpServerCodec}, {@link RequestFraming} and {@code IdleStateHandler}; the channel must allow half-closure
 * so that a body cut short by the client can still be answered. A request whose {@code decoderResult()} failed is
 * never routed: it is answered with its error and the connection closes.
 *
 * <p>It owns the connection's life cycle: it sends {@code 100 Continue} once a handler accepts a request; it
 * stops reading while a complete request waits for its (possibly asynchronous) answer, holding any pipelined
 * request until then; it tells a handler when its body is truncated, times out or the connection drops; and when
 * a handler answers before the body has arrived it closes gracefully (lingering close: stop writing, drain and
 * drop input for a moment, then close) so the client reads the answer instead of a reset.
 *
 * <p>It enforces the edge limits ({@link HttpLimits}) that need to know where a request stands: a head that
 * {@link HeadTimeout} reports as expired and a body that brought nothing for the body timeout (the idle handler's
 * reader-idle event) are answered 408 and closed, the handler aborted so that it gives back what it holds; and on a
 * connection admitted on the cap's reserve ({@link ConnectionCap}) a request without a valid cluster signature is
 * answered 503 and closed.
 */
public final class HttpDispatcher extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(HttpDispatcher.class);
  private static final long LINGER_MILLIS = 2000;
  /**
   * The user event of a graceful stop ({@link HttpServer#drain}): an idle connection closes now, a busy one after
   * the answer it is sending, which says {@code Connection: close}.
   */
  static final Object DRAIN = new Object() {
    @Override
    public String toString() {
      return "DRAIN";
    }
  };

  private final Router router;
  private final String nodeId;
  private final ExchangeListener listener;

  private HttpExchange current;
  private RequestHandler handler;
  private boolean handlerDone; // onEnd or onAbort has been called
  private final ArrayDeque<Object> held = new ArrayDeque<>(2);
  private boolean draining;
  private boolean inputShutdown;
  private boolean lastRequest; // the node is stopping: no request after the current one

  private final HeadTimeout headTimeout;            // null when heads have no deadline
  private final Predicate<HttpRequest> onReserve;   // non-null on a reserve connection: the requests it serves
  private final EdgeCounters counters;
  private final long minBodyBytes;      // bytes a body must bring per window; 0: no minimum
  private final long rateWindowMillis;
  private final long minBodyRate;       // bytes per second, for the error message

  /** Stands for a request whose head never arrived whole, to answer it 408 (not reported to the listener). */
  private static final HttpRequest PARTIAL_HEAD = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/");

  public HttpDispatcher(Router router, String nodeId) {
    this(router, nodeId, ExchangeListener.NONE);
  }

  /** @param listener told of every answered request (metrics) */
  public HttpDispatcher(Router router, String nodeId, ExchangeListener listener) {
    this(router, nodeId, listener, null, null, new EdgeCounters(), null);
  }

  /**
   * @param headTimeout the connection's head deadline, told when heads arrive; null for none
   * @param onReserve for a connection admitted on the cap's reserve, which requests it serves (the others get 503
   *     and the connection closes); null for a connection within the cap
   * @param counters where timeouts and refusals are counted
   * @param limits whose minimum body rate request bodies are held to; null for none
   */
  HttpDispatcher(Router router, String nodeId, ExchangeListener listener, HeadTimeout headTimeout,
      Predicate<HttpRequest> onReserve, EdgeCounters counters, HttpLimits limits) {
    this.router = router;
    this.nodeId = nodeId;
    this.listener = listener;
    this.headTimeout = headTimeout;
    this.onReserve = onReserve;
    this.counters = counters;
    this.minBodyBytes = limits == null ? 0 : limits.minBodyBytesPerWindow();
    this.rateWindowMillis = limits == null ? 0 : limits.bodyTimeout().toMillis();
    this.minBodyRate = limits == null ? 0 : limits.minBodyRate();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (draining) {
      ReferenceCountUtil.release(msg);
      return;
    }
    if (current != null && current.requestComplete()) {
      held.add(msg); // pipelined: wait until the current answer is out
      ctx.channel().config().setAutoRead(false);
      return;
    }
    process(ctx, msg);
  }

  private void process(ChannelHandlerContext ctx, Object msg) {
    try {
      if (msg instanceof HttpRequest req) {
        start(ctx, req);
      }
      if (msg instanceof HttpContent chunk && current != null) {
        content(ctx, chunk);
      }
    } finally {
      ReferenceCountUtil.release(msg);
    }
  }

  private void start(ChannelHandlerContext ctx, HttpRequest req) {
    handler = null;
    handlerDone = false;
    if (headTimeout != null) {
      headTimeout.headArrived();
    }
    if (req.decoderResult().isFailure()) {
      current = new HttpExchange(ctx, req, this, nodeId, null);
      Throwable cause = req.decoderResult().cause();
      current.markRequestComplete();
      current.lingerAfterResponse(); // unread input would turn our close into a reset that destroys the answer
      log.debug("node={} {}: refused request: {}", nodeId, ctx.channel().remoteAddress(), cause.toString());
      current.sendError(framingError(cause));
      return;
    }
    if (onReserve != null && !onReserve.test(req)) {
      refuseOverCap(ctx, req);
      return;
    }
    RequestPath path;
    try {
      path = RequestPath.of(req.uri());
    } catch (ApiException e) {
      current = new HttpExchange(ctx, req, this, nodeId, null);
      current.sendError(e);
      return;
    }
    HttpExchange ex = new HttpExchange(ctx, req, this, nodeId, path);
    current = ex;
    try {
      handler = router.route(ex);
      handler.onRequest(ex);
    } catch (Throwable t) {
      abortHandler(ex, t);
      ex.sendError(t);
      return;
    }
    if (minBodyBytes > 0 && !ex.requestComplete() && (HttpUtil.isTransferEncodingChunked(req)
        || HttpUtil.getContentLength(req, 0L) > 0)) {
      watchBodyRate(ctx, ex, 0);
    }
    // The handler may have answered already (and, on keep-alive, this exchange may be over): use ex, not current.
    if (!ex.responseStarted() && HttpUtil.is100ContinueExpected(req)) {
      ex.markContinueSent();
      ctx.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE));
    }
  }

  /**
   * A client request on a connection beyond the cap: 503 with Retry-After, then close. The body, if any, is read
   * and dropped (lingering close), so the client reads the answer instead of a reset.
   */
  private void refuseOverCap(ChannelHandlerContext ctx, HttpRequest req) {
    current = new HttpExchange(ctx, req, this, nodeId, null);
    current.lingerAfterResponse();
    counters.onRefusedAnswered();
    log.debug("node={} {}: refused over the connection cap", nodeId, ctx.channel().remoteAddress());
    current.sendError(new ServiceUnavailableException(ServiceUnavailableException.TOO_MANY_CONNECTIONS,
        "this node holds as many connections as it may (--max-connections); retry later", 1));
  }

  /** The answer to a request the decoder or {@link RequestFraming} refused; the connection closes after it. */
  private static ApiException framingError(Throwable cause) {
    if (cause instanceof ApiException e) {
      return e; // RequestFraming's own refusal (505, 501, 400)
    }
    String what = cause instanceof TooLongFrameException ? "request line or headers too long" : "malformed request";
    return new BadRequestException("MalformedRequest", what + ": " + cause.getMessage());
  }

  private void content(ChannelHandlerContext ctx, HttpContent chunk) {
    HttpExchange ex = current;
    ex.addBodyBytes(chunk.content().readableBytes());
    if (chunk.decoderResult().isFailure()) {
      fail(ex, new BadRequestException("MalformedRequest", "malformed request body: " + chunk.decoderResult().cause()));
      return;
    }
    boolean last = chunk instanceof LastHttpContent;
    if (last) {
      ex.markRequestComplete();
    }
    if (handler != null && !handlerDone && !ex.responseStarted()) {
      try {
        handler.onContent(ex, chunk);
        if (last) {
          handlerDone = true;
          handler.onEnd(ex);
        }
      } catch (Throwable t) {
        abortHandler(ex, t);
        ex.sendError(t);
      }
    }
    // Reading goes on while the answer is pending: a half-close or reset is seen at once, and a pipelined request
    // is held (which stops reading) until this exchange is over. Toggling reads per request costs two syscalls.
  }

  /** Called by the exchange on the event loop when its answer has been written (or failed to). */
  void responseDone(HttpExchange ex, boolean success) {
    if (ex.request() != PARTIAL_HEAD) { // not a request: counted in EdgeCounters
      report(ex);
    }
    if (ex != current) {
      return;
    }
    ChannelHandlerContext ctx = ctxOf(ex);
    if (success && ex.responseKeepAlive() && !inputShutdown && !lastRequest) {
      next(ctx);
    } else if (success && (ex.lingers() || !ex.requestComplete() && ex.hasBody()
        && !(HttpUtil.is100ContinueExpected(ex.request()) && !ex.continueSent()))) {
      log.debug("node={} {} {}: answered before the body ended; lingering close", nodeId, ex.method(), ex.request().uri());
      linger(ex); // answered before the body arrived: let the client finish sending, then close
    } else {
      log.debug("node={} {} {}: closing (write ok: {}, keep-alive: {}, input shut: {})", nodeId, ex.method(),
          ex.request().uri(), success, ex.responseKeepAlive(), inputShutdown);
      ex.channel().close();
    }
  }

  private void report(HttpExchange ex) {
    try {
      listener.completed(ex.method(), ex.status(), ex.elapsedNanos(), ex.bodyBytes(), ex.responseBytes());
      if (ex.errorCode() != null) {
        listener.error(ex.errorCode());
      }
    } catch (RuntimeException e) {
      log.debug("node={} request listener failed: {}", nodeId, e.toString());
    }
  }

  private ChannelHandlerContext ctxOf(HttpExchange ex) {
    return ex.channel().pipeline().context(this);
  }

  /** The exchange is over: resume reading and run any request that arrived meanwhile. */
  private void next(ChannelHandlerContext ctx) {
    current = null;
    handler = null;
    if (headTimeout != null) {
      headTimeout.awaitNext();
    }
    while (!held.isEmpty() && (current == null || !current.requestComplete())) {
      process(ctx, held.poll());
    }
    if ((current == null || !current.requestComplete()) && !ctx.channel().config().isAutoRead()) {
      ctx.channel().config().setAutoRead(true); // reads again (it stopped for a held request)
    }
  }

  private void linger(HttpExchange ex) {
    // The close is scheduled first: whatever goes wrong below, the connection must not outlive the linger.
    ex.channel().eventLoop().schedule(() -> ex.channel().close(), LINGER_MILLIS, TimeUnit.MILLISECONDS);
    draining = true;
    held.forEach(ReferenceCountUtil::release);
    held.clear();
    if (ex.channel() instanceof DuplexChannel duplex) {
      duplex.shutdownOutput();
    }
    ex.channel().config().setAutoRead(true);
    abortHandler(ex, new IncompleteBodyException(ex.bodyBytes(), ex.declaredLength()));
  }

  private void fail(HttpExchange ex, ApiException e) {
    abortHandler(ex, e);
    ex.sendError(e);
  }

  private void abortHandler(HttpExchange ex, Throwable cause) {
    if (handler != null && !handlerDone) {
      handlerDone = true;
      try {
        handler.onAbort(ex, cause);
      } catch (Throwable t) {
        log.warn("node={} abort callback failed", nodeId, t);
      }
    }
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
    if (evt instanceof ChannelInputShutdownEvent) {
      inputShutdown = true;
      if (current == null || draining) {
        ctx.close();
      } else if (!current.requestComplete()) {
        // The client stopped sending before the body was complete (e.g. Content-Length longer than the data).
        current.markRequestComplete();
        current.closeAfterResponse(); // the client has stopped sending: this answer is the connection's last
        fail(current, new IncompleteBodyException(current.bodyBytes(), current.declaredLength()));
      }
    } else if (evt == DRAIN) {
      lastRequest = true;
      if (current == null) {
        ctx.close(); // idle between requests: a client retries a request it sees the connection close before
      } else {
        current.closeAfterResponse(); // an answer not started yet says Connection: close
      }
    } else if (evt == HeadTimeout.EXPIRED) {
      headExpired(ctx);
    } else if (evt instanceof IdleStateEvent idle && idle.state() == IdleState.READER_IDLE) {
      bodyStalled();
    } else if (evt instanceof IdleStateEvent) {
      if (current != null && !current.requestComplete()) {
        current.closeAfterResponse();
        fail(current, new RequestTimeoutException(
            "no request data for too long after " + current.bodyBytes() + " body bytes; nothing was stored"));
      } else if (current == null || current.responseStarted()) {
        ctx.close(); // idle keep-alive connection, or a response nobody is reading
      }
    } else {
      super.userEventTriggered(ctx, evt);
    }
  }

  /** Part of a head arrived, the rest did not in time: 408, then close. */
  private void headExpired(ChannelHandlerContext ctx) {
    if (current != null || draining) {
      return; // a head arrived meanwhile, or the connection is closing anyway
    }
    log.debug("node={} {}: request head not complete in time", nodeId, ctx.channel().remoteAddress());
    current = new HttpExchange(ctx, PARTIAL_HEAD, this, nodeId, null);
    current.markRequestComplete();
    current.lingerAfterResponse(); // the client may still be sending: a close with unread input would be a reset
    current.sendError(new RequestTimeoutException("the request head was not complete in time; nothing was done"));
  }

  /**
   * Holds {@code ex}'s body to the minimum rate: once a window, the bytes that arrived in it must reach the minimum
   * (or the rest of the body, if that is less), else the upload is aborted as a stalled one is (a slowloris trickle
   * never stalls). Like a stall it counts while
   * the handler holds reading back. Ends by itself once the body is complete or the exchange over.
   */
  private void watchBodyRate(ChannelHandlerContext ctx, HttpExchange ex, long mark) {
    ctx.executor().schedule(() -> {
      if (current != ex || ex.requestComplete() || ex.responseStarted() || draining || !ctx.channel().isActive()) {
        return;
      }
      long got = ex.bodyBytes() - mark;
      long declared = ex.declaredLength(); // -1 when chunked
      long due = declared < 0 ? minBodyBytes : Math.min(minBodyBytes, declared - mark); // or the rest, if less
      if (got >= due) {
        watchBodyRate(ctx, ex, ex.bodyBytes());
        return;
      }
      counters.onBodyTimeout();
      ex.closeAfterResponse();
      fail(ex, new RequestTimeoutException("the request body brought " + got + " bytes in the last "
          + rateWindowMillis / 1000.0 + " s, under the minimum rate of " + minBodyRate + " B/s (--min-body-rate), after "
          + ex.bodyBytes() + " bytes; nothing was stored"));
    }, rateWindowMillis, TimeUnit.MILLISECONDS);
  }

  /**
   * No body bytes for the body timeout (the idle handler's reader idle). It counts while the handler holds reading
   * back too: a next hop that takes no bytes for that long (a proxy's relay to a stuck target) stalls the upload
   * as surely as a silent client, and the upload is aborted the same way.
   */
  private void bodyStalled() {
    if (current == null || current.requestComplete() || current.responseStarted() || draining) {
      return; // no body awaited, or already answered: the idle timeout and the lingering close govern
    }
    counters.onBodyTimeout();
    current.closeAfterResponse();
    fail(current, new RequestTimeoutException("no request body bytes for too long after " + current.bodyBytes()
        + " bytes; nothing was stored"));
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
    if (current != null && handler != null && !current.responseDone()) {
      try {
        handler.onClientWritabilityChanged(current, ctx.channel().isWritable());
      } catch (Throwable t) {
        log.warn("node={} writability callback failed", nodeId, t);
      }
    }
    super.channelWritabilityChanged(ctx);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    if (current != null && !current.requestComplete()) {
      abortHandler(current, new ClosedChannelException());
    } else if (current != null && handler != null && !current.responseDone()) {
      try {
        handler.onClientClosed(current);
      } catch (Throwable t) {
        log.warn("node={} close callback failed", nodeId, t);
      }
    }
    held.forEach(ReferenceCountUtil::release);
    held.clear();
    super.channelInactive(ctx);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    log.debug("node={} connection {} failed: {}", nodeId, ctx.channel().remoteAddress(), cause.toString());
    if (current != null && !current.requestComplete()) {
      abortHandler(current, cause);
    }
    ctx.close().addListener(ChannelFutureListener.CLOSE);
  }
}
