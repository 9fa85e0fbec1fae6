package io.granary.common.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.clustermap.ClusterJson;
import io.granary.common.error.ApiException;
import io.granary.common.error.BadRequestException;
import io.granary.common.error.ErrorResponse;
import io.granary.common.error.InternalErrorException;
import io.granary.common.error.RangeNotSatisfiableException;
import io.granary.common.error.ServiceUnavailableException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.DefaultFileRegion;
import io.netty.channel.EventLoop;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One request and its response. Handlers read the request from it and answer through it.
 *
 * <p>Threading: the {@code send*} methods may be called from any thread; they hop onto the connection's event
 * loop. Only the first answer is sent; later ones are ignored, so an error path racing a success path cannot
 * corrupt the connection. Accessors may be called from any thread once the request head has arrived.
 */
public final class HttpExchange {
  private static final Logger log = LoggerFactory.getLogger(HttpExchange.class);
  private static final ObjectMapper JSON = ClusterJson.mapper();

  private final ChannelHandlerContext ctx;
  private final HttpRequest request;
  private final HttpDispatcher dispatcher;
  private final String nodeId;
  private final RequestPath path;
  private Map<String, List<String>> query;
  private ErrorRenderer errorRenderer = ErrorRenderer.JSON;
  private java.util.function.UnaryOperator<ErrorRenderer> errorOverride; // see overrideErrors

  // Event-loop state.
  private boolean responseStarted;
  private boolean responseDone;
  private boolean requestComplete;
  private boolean continueSent;
  private boolean forceClose;
  private boolean responseKeepAlive;
  private boolean lingerAfterResponse;
  private long bodyBytes;
  private final long startNanos = System.nanoTime(); // for the request duration metric
  private int status; // the status sent, once the answer has started
  private long responseBytes; // body bytes handed to Netty
  private String errorCode; // the code of the error answer sent by sendError, else null

  HttpExchange(ChannelHandlerContext ctx, HttpRequest request, HttpDispatcher dispatcher, String nodeId, RequestPath path) {
    this.ctx = ctx;
    this.request = request;
    this.dispatcher = dispatcher;
    this.nodeId = nodeId;
    this.path = path;
  }

  public HttpRequest request() {
    return request;
  }

  public HttpMethod method() {
    return request.method();
  }

  /** The request path; {@code null} only when the request line itself was malformed. */
  public RequestPath path() {
    return path;
  }

  public String header(CharSequence name) {
    return request.headers().get(name);
  }

  /** The first value of a query parameter, or {@code null}. */
  public String queryParam(String name) {
    List<String> v = queryParams().get(name);
    return v == null || v.isEmpty() ? null : v.get(0);
  }

  public Map<String, List<String>> queryParams() {
    if (query == null) {
      if (path == null || path.rawQuery().isEmpty()) {
        query = Map.of();
      } else {
        // As in the path, raw (unescaped) UTF-8 arrives as ISO-8859-1 chars; escapes are UTF-8 too.
        String raw = new String(path.rawQuery().getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8);
        try {
          query = new QueryStringDecoder(raw, false).parameters();
        } catch (IllegalArgumentException e) { // malformed percent-escape
          throw new BadRequestException(BadRequestException.INVALID_URI, "malformed query string: " + e.getMessage());
        }
      }
    }
    return query;
  }

  public Channel channel() {
    return ctx.channel();
  }

  public EventLoop eventLoop() {
    return ctx.channel().eventLoop();
  }

  public String nodeId() {
    return nodeId;
  }

  /** Bytes of body received so far. Event loop only. */
  public long bodyBytes() {
    return bodyBytes;
  }

  /** The declared Content-Length, or -1 when the body is chunked or absent (or the decoder refused the value). */
  public long declaredLength() {
    try {
      return HttpUtil.getContentLength(request, -1L);
    } catch (NumberFormatException e) {
      return -1; // "5, 5" or "0x5": the decoder failed the request, which is being refused and closed
    }
  }

  /** Whether the request declares a body (Content-Length &gt; 0 or chunked). */
  public boolean hasBody() {
    return declaredLength() > 0 || HttpUtil.isTransferEncodingChunked(request);
  }

  // ---------------------------------------------------------------- answers

  /** Sends a complete response (status, headers, small body). */
  public void respond(FullHttpResponse response) {
    onLoop(() -> {
      if (!begin(response)) {
        response.release();
        return;
      }
      responseBytes += response.content().readableBytes();
      ctx.writeAndFlush(response).addListener(f -> finished(f.isSuccess(), f.cause()));
    });
  }

  /** Sends {@code body} as JSON with {@code status}. */
  public void sendJson(HttpResponseStatus status, Object body) {
    sendJson(status, body, null);
  }

  /** Sends {@code body} as JSON with {@code status} and {@code headers} (may be null). */
  public void sendJson(HttpResponseStatus status, Object body, io.netty.handler.codec.http.HttpHeaders headers) {
    ByteBuf buf = ctx.alloc().buffer(256);
    try (ByteBufOutputStream out = new ByteBufOutputStream(buf)) {
      JSON.writeValue((OutputStream) out, body);
    } catch (IOException e) {
      buf.release();
      sendError(new InternalErrorException("encoding JSON response failed", e));
      return;
    }
    FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, buf);
    if (headers != null) {
      r.headers().set(headers);
    }
    r.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
    HttpUtil.setContentLength(r, buf.readableBytes());
    respond(r);
  }

  /** Sends {@code status} with no body; {@code response} may carry headers (Content-Length is kept for HEAD). */
  public void sendHead(HttpResponseStatus status, io.netty.handler.codec.http.HttpHeaders headers) {
    FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.EMPTY_BUFFER);
    if (headers != null) {
      r.headers().set(headers);
    }
    if (!r.headers().contains(HttpHeaderNames.CONTENT_LENGTH)) {
      HttpUtil.setContentLength(r, 0);
    }
    respond(r);
  }

  /** Sends 307 Temporary Redirect to {@code location} (never 301: a cached permanent redirect outlives a map change). */
  public void sendRedirect(String location) {
    FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.TEMPORARY_REDIRECT,
        Unpooled.EMPTY_BUFFER);
    r.headers().set(HttpHeaderNames.LOCATION, location);
    HttpUtil.setContentLength(r, 0);
    respond(r);
  }

  /**
   * Sends a file region zero-copy (sendfile): {@code head} first (it must carry Content-Length), then
   * {@code length} bytes of {@code file} from {@code offset}. The file channel is closed when the transfer ends.
   */
  public void sendFile(HttpResponse head, FileChannel file, long offset, long length) {
    onLoop(() -> {
      if (!begin(head)) {
        closeQuietly(file);
        return;
      }
      boolean body = !request.method().equals(HttpMethod.HEAD) && length > 0;
      // Cork (as nginx's tcp_nopush does) so headers and file leave in full segments; uncork once all is written.
      boolean cork = body && ctx.channel() instanceof EpollSocketChannel;
      if (cork) {
        ((EpollSocketChannel) ctx.channel()).config().setTcpCork(true);
      }
      ctx.write(head);
      if (body) {
        responseBytes += length;
        ctx.write(new DefaultFileRegion(file, offset, length));
      } else {
        closeQuietly(file);
      }
      ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT).addListener(f -> {
        if (cork && ctx.channel().isOpen()) {
          ((EpollSocketChannel) ctx.channel()).config().setTcpCork(false);
        }
        finished(f.isSuccess(), f.cause());
      });
    });
  }

  /**
   * Starts a streamed answer: sends {@code head} (with Content-Length, or chunked). Follow with
   * {@link #streamContent} and end with {@link #endStream}. Event loop only; false if an answer was already sent.
   */
  public boolean startStream(HttpResponse head) {
    assert ctx.executor().inEventLoop();
    if (!begin(head)) {
      return false;
    }
    ctx.write(head);
    return true;
  }

  /**
   * Queues one chunk of a streamed answer (ownership passes to Netty) without sending it: call
   * {@link #flushStream} once a burst of chunks is queued. Queued bytes count against the client's writability.
   * Event loop only.
   */
  public ChannelFuture streamContent(HttpContent content) {
    responseBytes += content.content().readableBytes();
    return ctx.write(content);
  }

  /**
   * Sends {@code count} bytes of {@code file} from {@code position} as part of a streamed answer with a
   * Content-Length, zero-copy; the caller keeps {@code file} open until the returned future completes. Event loop
   * only.
   */
  public ChannelFuture streamFileRegion(FileChannel file, long position, long count) {
    responseBytes += count;
    return ctx.writeAndFlush(new BorrowedFileRegion(file, position, count));
  }

  /** Sends the chunks queued by {@link #streamContent}. Event loop only. */
  public void flushStream() {
    ctx.flush();
  }

  /** Ends a streamed answer with {@code last} (ownership passes to Netty). Event loop only. */
  public void endStream(LastHttpContent last) {
    responseBytes += last.content().readableBytes();
    ctx.writeAndFlush(last).addListener(f -> finished(f.isSuccess(), f.cause()));
  }

  /** Whether the client can take more bytes now; when false, stop feeding it until writability returns. */
  public boolean clientWritable() {
    return ctx.channel().isWritable();
  }

  /** Stops or resumes reading the request body from the client (back-pressure while relaying a body). */
  public void readRequestBody(boolean read) {
    if (!requestComplete) {
      ctx.channel().config().setAutoRead(read);
      if (read) {
        ctx.read();
      }
    }
  }

  /** Aborts the connection: for failures after a streamed answer has started, when no error can be sent any more. */
  public void abortConnection() {
    onLoop(() -> ctx.channel().close());
  }

  /** Whether the answer has been started (head sent). Event loop only. */
  public boolean answered() {
    return responseStarted;
  }

  /** Whether the request body has been fully received. Event loop only. */
  public boolean requestReceived() {
    return requestComplete;
  }

  /** Answers with the error {@code t} maps to: its own status for an {@link ApiException}, else 500. */
  public void sendError(Throwable t) {
    ApiException e;
    if (t instanceof ApiException api) {
      e = api;
    } else {
      log.error("node={} {} {}: internal error", nodeId, request.method(), request.uri(), t);
      e = new InternalErrorException("internal error: " + t, t);
    }
    ErrorRenderer renderer = errorOverride == null ? errorRenderer : errorOverride.apply(errorRenderer);
    FullHttpResponse r = renderer.render(e, this);
    if (request.method().equals(HttpMethod.HEAD)) {
      FullHttpResponse head = r.replace(Unpooled.EMPTY_BUFFER); // keep headers, drop body
      r.release(); // replace() does not release the JSON body it dropped
      r = head;
    }
    String code = renderer.code(e);
    FullHttpResponse response = r;
    onLoop(() -> {
      if (!responseStarted) {
        errorCode = code; // only if this error is the answer (the first one wins)
      }
      respond(response);
    });
  }

  /** Builds the JSON error response for {@code e}. */
  public static FullHttpResponse errorResponse(ApiException e, String nodeId, io.netty.buffer.ByteBufAllocator alloc) {
    ByteBuf buf = alloc.buffer(128);
    try (ByteBufOutputStream out = new ByteBufOutputStream(buf)) {
      JSON.writeValue((OutputStream) out, new ErrorResponse(e.code(), e.getMessage(), nodeId));
    } catch (IOException impossible) {
      throw new IllegalStateException(impossible);
    }
    FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, e.status(), buf);
    r.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
    HttpUtil.setContentLength(r, buf.readableBytes());
    if (e instanceof ServiceUnavailableException su) {
      r.headers().set(HttpHeaderNames.RETRY_AFTER, su.retryAfterSeconds());
    }
    if (e instanceof RangeNotSatisfiableException rn && rn.objectSize() >= 0) {
      r.headers().set(HttpHeaderNames.CONTENT_RANGE, "bytes */" + rn.objectSize());
    }
    return r;
  }

  /** Renders this exchange's errors with {@code renderer} (e.g. S3 XML) instead of the native JSON form. */
  public void useErrorRenderer(ErrorRenderer renderer) {
    this.errorRenderer = renderer;
  }

  /**
   * Renders errors through {@code override} applied to whichever renderer the handlers set, before or after this
   * call: a step in front of a handler can change some answers (say, a redirect instead of a 404) while the handler
   * still picks the API's error format.
   */
  public void overrideErrors(java.util.function.UnaryOperator<ErrorRenderer> override) {
    this.errorOverride = override;
  }

  /** The allocator of this connection, for building answers. */
  public io.netty.buffer.ByteBufAllocator alloc() {
    return ctx.alloc();
  }

  /** Makes the connection close after this exchange, whatever the client asked. */
  public void closeAfterResponse() {
    onLoop(() -> forceClose = true);
  }

  /** Runs {@code task} on this connection's event loop (now, when already on it). */
  public void onLoop(Runnable task) {
    if (ctx.executor().inEventLoop()) {
      task.run();
    } else {
      ctx.executor().execute(task);
    }
  }

  // ---------------------------------------------------------------- dispatcher bookkeeping

  /** Marks the response started and sets its connection headers; false if an answer was already sent. */
  private boolean begin(HttpResponse response) {
    if (responseStarted || !ctx.channel().isActive()) {
      return false;
    }
    responseStarted = true;
    status = response.status().code();
    // A response sent before the body arrived ends the connection: after an unanswered Expect the client
    // sends no body, otherwise the rest of the body is drained and dropped (see HttpDispatcher). A request
    // without a body is complete once its head is here, even if the decoder's empty last chunk is still due.
    responseKeepAlive = HttpUtil.isKeepAlive(request) && !forceClose && (requestComplete || !hasBody());
    HttpUtil.setKeepAlive(response, responseKeepAlive);
    return true;
  }

  private void finished(boolean success, Throwable cause) {
    responseDone = true;
    if (!success && cause != null) {
      log.debug("node={} {} {}: response write failed: {}", nodeId, request.method(), request.uri(), cause.toString());
    }
    dispatcher.responseDone(this, success);
  }

  boolean responseStarted() {
    return responseStarted;
  }

  /** The code of the error answer {@link #sendError} sent, or null. Event loop only, once the answer has ended. */
  String errorCode() {
    return errorCode;
  }

  /** The status sent. Event loop only, once the answer has started. */
  int status() {
    return status;
  }

  /** Nanoseconds since the request head arrived. */
  long elapsedNanos() {
    return System.nanoTime() - startNanos;
  }

  /** Body bytes of the answer handed to Netty so far. Event loop only. */
  long responseBytes() {
    return responseBytes;
  }

  boolean responseDone() {
    return responseDone;
  }

  boolean requestComplete() {
    return requestComplete;
  }

  void markRequestComplete() {
    requestComplete = true;
  }

  boolean continueSent() {
    return continueSent;
  }

  void markContinueSent() {
    continueSent = true;
  }

  void addBodyBytes(long n) {
    bodyBytes += n;
  }

  /** After the answer, close gracefully even though the request is complete (the decoder discards the rest). */
  void lingerAfterResponse() {
    lingerAfterResponse = true;
    forceClose = true;
  }

  boolean lingers() {
    return lingerAfterResponse;
  }

  /** Whether the answer let the connection stay open. */
  boolean responseKeepAlive() {
    return responseKeepAlive;
  }

  private static void closeQuietly(FileChannel ch) {
    try {
      ch.close();
    } catch (IOException ignored) {
      // nothing to do: the descriptor is gone either way
    }
  }
}
