package io.granary.common.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.ClusterJson;
import io.granary.common.error.ConflictException;
import io.granary.common.error.RouteNotFoundException;
import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledDirectByteBuf;
import io.netty.buffer.UnpooledHeapByteBuf;
import io.netty.channel.ChannelOption;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import java.io.ByteArrayOutputStream;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The dispatcher behind the real codec, driven with raw request bytes. The first path segment of a request picks
 * what the test handler does: {@code /end/} answers 200 in onEnd, {@code /head/} answers in onRequest (as the GET
 * handlers do), {@code /async/} leaves the answer to the test, {@code /throw/} throws a 409 in onRequest; any
 * other path makes the router throw 404.
 */
class HttpDispatcherTest {
  private final List<Recorder> handlers = new ArrayList<>();
  private final List<ByteBuf> sent = new ArrayList<>();
  private final TrackingAllocator alloc = new TrackingAllocator();
  private EmbeddedChannel ch;

  @BeforeEach
  void setUp() {
    Router router = ex -> {
      String p = ex.path().raw();
      if (!(p.startsWith("/end/") || p.startsWith("/head/") || p.startsWith("/async/") || p.startsWith("/throw/"))) {
        throw new RouteNotFoundException(p);
      }
      Recorder r = new Recorder(p.substring(1, p.indexOf('/', 1)));
      handlers.add(r);
      return r;
    };
    ch = new EmbeddedChannel();
    ch.config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
    ch.config().setAllocator(alloc);
    ch.pipeline()
        .addLast("http", new HttpServerCodec(HttpServer.MAX_INITIAL_LINE, HttpServer.MAX_HEADER_SIZE,
            HttpServer.MAX_CHUNK_SIZE))
        .addLast("dispatch", new HttpDispatcher(router, "n1"));
  }

  @AfterEach
  void tearDown() {
    ch.finishAndReleaseAll();
    // Every request byte the test wrote was consumed and released by the codec and the dispatcher.
    for (ByteBuf b : sent) {
      assertThat(b.refCnt()).as("inbound buffer released").isZero();
    }
    // Every buffer the pipeline allocated (decoder cumulation, responses, encoder output) was released.
    assertThat(alloc.allocated).allSatisfy(b -> assertThat(b.refCnt()).as("allocated buffer released").isZero());
  }

  /** Hands out unpooled buffers and remembers them, so a test can check that all were released. */
  static final class TrackingAllocator extends AbstractByteBufAllocator {
    final List<ByteBuf> allocated = new ArrayList<>();

    TrackingAllocator() {
      super(false);
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
      ByteBuf b = new UnpooledHeapByteBuf(this, initialCapacity, maxCapacity);
      allocated.add(b);
      return b;
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
      ByteBuf b = new UnpooledDirectByteBuf(this, initialCapacity, maxCapacity);
      allocated.add(b);
      return b;
    }

    @Override
    public boolean isDirectBufferPooled() {
      return false;
    }
  }

  // ---------------------------------------------------------------- tests

  @Test
  void get_answered_keepsConnectionAliveForNextRequest() {
    send("GET /end/a HTTP/1.1\r\nHost: x\r\n\r\n");
    List<Resp> first = responses();
    assertThat(first).hasSize(1);
    assertThat(first.get(0).status()).isEqualTo(200);
    assertThat(first.get(0).body()).isEqualTo("end:/end/a:0");
    assertThat(first.get(0).header("connection")).isNotEqualToIgnoringCase("close");
    assertThat(ch.isOpen()).isTrue();

    send("GET /end/b HTTP/1.1\r\nHost: x\r\n\r\n");
    List<Resp> second = responses();
    assertThat(second).extracting(Resp::body).containsExactly("end:/end/b:0");
    assertThat(ch.isOpen()).isTrue();
    assertThat(handlers).hasSize(2);
    assertThat(handlers.get(0).events).containsExactly("request", "content:0", "end");
    assertThat(alloc.allocated).as("the pipeline allocates from the tracking allocator").isNotEmpty();
  }

  @Test
  void get_answeredInOnRequest_keepsConnectionAlive() {
    // The real GET/HEAD/DELETE/redirect handlers answer from onRequest, before the codec's empty last chunk.
    send("GET /head/a HTTP/1.1\r\nHost: x\r\n\r\n");
    Resp r = single(responses());
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.header("connection")).isNotEqualToIgnoringCase("close");
    assertThat(ch.isOpen()).isTrue();
    assertThat(handlers.get(0).events).containsExactly("request");

    send("GET /head/b HTTP/1.1\r\nHost: x\r\n\r\n");
    assertThat(single(responses()).body()).isEqualTo("head:/head/b:0");
    assertThat(ch.isOpen()).isTrue();
  }

  @Test
  void get_connectionClose_answeredInOnRequest_closesAtOnce() {
    send("GET /head/a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    Resp r = single(responses());
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.header("connection")).isEqualToIgnoringCase("close");
    // No body is coming, so there is nothing to linger for.
    assertThat(ch.isOpen()).isFalse();
    assertThat(handlers.get(0).events).containsExactly("request");
  }

  @Test
  void http10Get_answered_closesAtOnce() {
    send("GET /end/a HTTP/1.0\r\n\r\n");
    Resp r = single(responses());
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.header("connection")).isEqualToIgnoringCase("close");
    assertThat(ch.isOpen()).isFalse();
  }

  @Test
  void put_bodyInSeveralWrites_reachesHandlerInOrder() {
    send("PUT /end/o HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\nhello");
    assertThat(responses()).isEmpty();
    send(" world");
    Resp r = single(responses());
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.body()).isEqualTo("end:/end/o:11");
    Recorder h = handlers.get(0);
    assertThat(h.body.toString(StandardCharsets.UTF_8)).isEqualTo("hello world");
    assertThat(h.events).startsWith("request").endsWith("end").doesNotContain("abort");
  }

  @Test
  void expectContinue_sends100BeforeBodyIsRead() {
    send("PUT /end/o HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n");
    String out = drain();
    assertThat(out).isEqualTo("HTTP/1.1 100 Continue\r\n\r\n");
    assertThat(handlers.get(0).events).containsExactly("request");

    send("hello");
    Resp r = single(responses());
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.body()).isEqualTo("end:/end/o:5");
    assertThat(handlers.get(0).body.toString(StandardCharsets.UTF_8)).isEqualTo("hello");
    assertThat(ch.isOpen()).isTrue();
  }

  @Test
  void expectContinue_rejectedInOnRequest_sendsNoContinueAndCloses() {
    send("PUT /throw/o HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n");
    String out = drain();
    assertThat(out).doesNotContain("100 Continue");
    Resp r = single(parse(out));
    assertThat(r.status()).isEqualTo(409);
    assertThat(r.header("connection")).isEqualToIgnoringCase("close");
    // The client never sent the body, so there is nothing to drain: close at once.
    assertThat(ch.isOpen()).isFalse();
  }

  @Test
  void onRequestThrowsApiException_answersItsStatusWithJsonError() throws Exception {
    send("GET /throw/x HTTP/1.1\r\nHost: x\r\n\r\n");
    Resp r = single(responses());
    assertThat(r.status()).isEqualTo(409);
    assertThat(r.header("content-type")).isEqualTo("application/json");
    JsonNode json = ClusterJson.mapper().readTree(r.body());
    assertThat(json.get("code").asText()).isEqualTo("BucketAlreadyExists");
    assertThat(json.get("message").asText()).isEqualTo("bucket 'ais://b' already exists");
    assertThat(json.get("node").asText()).isEqualTo("n1");
    assertThat(handlers.get(0).events).containsExactly("request", "abort:ConflictException");
  }

  @Test
  void headRequestError_answersStatusWithoutBody() {
    send("HEAD /throw/x HTTP/1.1\r\nHost: x\r\n\r\nGET /end/next HTTP/1.1\r\nHost: x\r\n\r\n");
    String out = drain();
    // A HEAD answer has headers only; the next response follows right after them.
    assertThat(out).startsWith("HTTP/1.1 409 Conflict\r\n");
    int next = out.indexOf("HTTP/1.1 200 OK\r\n");
    assertThat(next).isPositive();
    assertThat(out.substring(0, next)).endsWith("\r\n\r\n").doesNotContain("BucketAlreadyExists");
    assertThat(parse(out.substring(next))).extracting(Resp::body).containsExactly("end:/end/next:0");
  }

  @Test
  void routerThrows_answers404NoSuchEndpoint() throws Exception {
    send("GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n");
    Resp r = single(responses());
    assertThat(r.status()).isEqualTo(404);
    JsonNode json = ClusterJson.mapper().readTree(r.body());
    assertThat(json.get("code").asText()).isEqualTo("NoSuchEndpoint");
    assertThat(json.get("node").asText()).isEqualTo("n1");
    assertThat(handlers).isEmpty();
  }

  @Test
  void requestTargetNotOriginForm_answers400InvalidUriWithoutRouting() throws Exception {
    send("GET http://host/end/a HTTP/1.1\r\nHost: x\r\n\r\n");
    Resp r = single(responses());
    assertThat(r.status()).isEqualTo(400);
    assertThat(ClusterJson.mapper().readTree(r.body()).get("code").asText()).isEqualTo("InvalidURI");
    assertThat(handlers).isEmpty();
  }

  @Test
  void bodyCutShortByInputShutdown_abortsHandlerAnd400IncompleteBody() throws Exception {
    send("PUT /end/o HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n" + "x".repeat(40));
    assertThat(responses()).isEmpty();

    ch.pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);

    Recorder h = handlers.get(0);
    assertThat(h.events).last().isEqualTo("abort:IncompleteBodyException");
    assertThat(h.events).doesNotContain("end");
    assertThat(h.body.size()).isEqualTo(40);
    Resp r = single(responses());
    assertThat(r.status()).isEqualTo(400);
    JsonNode json = ClusterJson.mapper().readTree(r.body());
    assertThat(json.get("code").asText()).isEqualTo("IncompleteBody");
    assertThat(json.get("message").asText()).contains("40", "100");
    assertThat(ch.isOpen()).as("nothing more can arrive: closed after the answer").isFalse();
  }

  @Test
  void channelClosedMidBody_abortsHandler() {
    send("PUT /end/o HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n" + "x".repeat(40));
    ch.close();
    Recorder h = handlers.get(0);
    assertThat(h.events).containsOnlyOnce("abort:ClosedChannelException");
    assertThat(h.abortCause).isInstanceOf(ClosedChannelException.class);
    assertThat(h.events).doesNotContain("end");
    assertThat(responses()).isEmpty();
  }

  @Test
  void channelFinishedMidBody_abortsHandler() {
    send("PUT /end/o HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n" + "x".repeat(40));
    ch.finishAndReleaseAll();
    assertThat(handlers.get(0).events).last().isEqualTo("abort:ClosedChannelException");
  }

  @Test
  void channelClosedAfterCompleteRequest_doesNotAbortHandler() {
    send("GET /async/a HTTP/1.1\r\nHost: x\r\n\r\n");
    ch.close();
    assertThat(handlers.get(0).events).containsExactly("request", "content:0", "end");
  }

  @Test
  void pipelinedRequests_answeredInOrder_whenFirstAnswersAsynchronously() {
    send("GET /async/1 HTTP/1.1\r\nHost: x\r\n\r\nGET /end/2 HTTP/1.1\r\nHost: x\r\n\r\n");
    assertThat(responses()).isEmpty();
    assertThat(handlers).as("second request is held until the first is answered").hasSize(1);

    handlers.get(0).exchange.sendJson(HttpResponseStatus.OK, Map.of("n", 1));
    ch.runPendingTasks();

    List<Resp> rs = responses();
    assertThat(rs).extracting(Resp::body).containsExactly("{\"n\":1}", "end:/end/2:0");
    assertThat(rs).allSatisfy(r -> assertThat(r.status()).isEqualTo(200));
    assertThat(ch.isOpen()).isTrue();
  }

  @Test
  void pipelinedRequests_asyncSyncAsync_laterRequestWaitsForThirdAnswer() {
    send("GET /async/1 HTTP/1.1\r\nHost: x\r\n\r\n"
        + "GET /end/2 HTTP/1.1\r\nHost: x\r\n\r\n"
        + "GET /async/3 HTTP/1.1\r\nHost: x\r\n\r\n");
    handlers.get(0).exchange.sendJson(HttpResponseStatus.OK, Map.of("n", 1));
    ch.runPendingTasks();
    assertThat(responses()).extracting(Resp::body).containsExactly("{\"n\":1}", "end:/end/2:0");
    assertThat(handlers).hasSize(3);

    // A fourth request must not overtake the unanswered third.
    send("GET /end/4 HTTP/1.1\r\nHost: x\r\n\r\n");
    assertThat(responses()).isEmpty();

    handlers.get(2).exchange.sendJson(HttpResponseStatus.OK, Map.of("n", 3));
    ch.runPendingTasks();
    assertThat(responses()).extracting(Resp::body).containsExactly("{\"n\":3}", "end:/end/4:0");
    assertThat(ch.isOpen()).isTrue();
  }

  @Test
  void pipelinedRequests_answeredInOnRequest_allAnsweredInOrder() {
    send("GET /head/1 HTTP/1.1\r\nHost: x\r\n\r\n"
        + "GET /head/2 HTTP/1.1\r\nHost: x\r\n\r\n"
        + "DELETE /head/3 HTTP/1.1\r\nHost: x\r\n\r\n");
    List<Resp> rs = responses();
    assertThat(rs).extracting(Resp::body).containsExactly("head:/head/1:0", "head:/head/2:0", "head:/head/3:0");
    assertThat(rs).allSatisfy(r -> assertThat(r.header("connection")).isNull());
    assertThat(handlers).allSatisfy(h -> assertThat(h.events).containsExactly("request"));
    assertThat(ch.isOpen()).isTrue();
  }

  @Test
  void exchange_secondAnswerIsIgnored() {
    send("GET /async/1 HTTP/1.1\r\nHost: x\r\n\r\n");
    HttpExchange ex = handlers.get(0).exchange;
    ex.sendJson(HttpResponseStatus.OK, Map.of("n", 1));
    ex.sendJson(HttpResponseStatus.CREATED, Map.of("n", 2));
    assertThat(responses()).extracting(Resp::body).containsExactly("{\"n\":1}");
  }

  @Test
  void malformedRequestLine_answers400_thenLingersAndCloses() throws Exception {
    send("THIS IS NOT HTTP\r\n\r\n");
    Resp r = single(responses());
    assertThat(r.status()).isEqualTo(400);
    assertThat(ClusterJson.mapper().readTree(r.body()).get("code").asText()).isEqualTo("MalformedRequest");
    assertThat(r.header("connection")).isEqualToIgnoringCase("close");
    // Unread input must not turn the close into a reset that destroys the answer: drain, then close.
    ch.advanceTimeBy(3, TimeUnit.SECONDS);
    ch.runScheduledPendingTasks();
    assertThat(ch.isOpen()).isFalse();
    assertThat(handlers).isEmpty();
  }

  @Test
  void earlyErrorToPutWithoutExpect_sentWithConnectionClose_thenDrainsAndCloses() {
    send("PUT /throw/o HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n" + "x".repeat(10));
    Resp r = single(responses());
    assertThat(r.status()).isEqualTo(409);
    assertThat(r.header("connection")).isEqualToIgnoringCase("close");
    assertThat(handlers.get(0).events).containsExactly("request", "abort:ConflictException");

    // Lingering close: the rest of the body (and anything after it) is read and dropped, not answered.
    assertThat(ch.isOpen()).isTrue();
    send("x".repeat(90) + "GET /end/next HTTP/1.1\r\nHost: x\r\n\r\n");
    assertThat(responses()).isEmpty();
    assertThat(handlers).hasSize(1);

    ch.advanceTimeBy(5, TimeUnit.SECONDS);
    ch.runScheduledPendingTasks();
    assertThat(ch.isOpen()).isFalse();
  }

  @Test
  void earlyAnswerWhileBodyStreams_stopsFeedingHandler() {
    send("PUT /async/o HTTP/1.1\r\nHost: x\r\nContent-Length: 20\r\n\r\n" + "y".repeat(5));
    Recorder h = handlers.get(0);
    h.exchange.sendError(new ConflictException(ConflictException.BUCKET_EXISTS, "no"));
    Resp r = single(responses());
    assertThat(r.status()).isEqualTo(409);
    assertThat(r.header("connection")).isEqualToIgnoringCase("close");
    send("y".repeat(15));
    assertThat(h.body.size()).as("no body delivered after the answer").isEqualTo(5);
    assertThat(h.events).doesNotContain("end");
  }

  // ---------------------------------------------------------------- helpers

  private void send(String raw) {
    ByteBuf b = Unpooled.copiedBuffer(raw, StandardCharsets.ISO_8859_1);
    sent.add(b);
    ch.writeInbound(b);
  }

  private String drain() {
    StringBuilder sb = new StringBuilder();
    for (Object o = ch.readOutbound(); o != null; o = ch.readOutbound()) {
      ByteBuf b = (ByteBuf) o;
      try {
        sb.append(b.toString(StandardCharsets.ISO_8859_1));
      } finally {
        b.release();
      }
    }
    return sb.toString();
  }

  private List<Resp> responses() {
    return parse(drain());
  }

  private static Resp single(List<Resp> rs) {
    assertThat(rs).hasSize(1);
    return rs.get(0);
  }

  record Resp(int status, Map<String, String> headers, String body) {
    String header(String name) {
      return headers.get(name);
    }
  }

  static List<Resp> parse(String s) {
    List<Resp> out = new ArrayList<>();
    int pos = 0;
    while (pos < s.length()) {
      int headEnd = s.indexOf("\r\n\r\n", pos);
      assertThat(headEnd).as("a complete response head in: %s", s).isGreaterThanOrEqualTo(0);
      String[] lines = s.substring(pos, headEnd).split("\r\n");
      Map<String, String> h = new LinkedHashMap<>();
      for (int i = 1; i < lines.length; i++) {
        int c = lines[i].indexOf(':');
        h.put(lines[i].substring(0, c).trim().toLowerCase(Locale.ROOT), lines[i].substring(c + 1).trim());
      }
      int len = h.containsKey("content-length") ? Integer.parseInt(h.get("content-length")) : 0;
      int bodyStart = headEnd + 4;
      assertThat(s.length()).as("a complete response body in: %s", s).isGreaterThanOrEqualTo(bodyStart + len);
      out.add(new Resp(Integer.parseInt(lines[0].split(" ")[1]), h, s.substring(bodyStart, bodyStart + len)));
      pos = bodyStart + len;
    }
    return out;
  }

  /** A handler that records its callbacks. */
  static final class Recorder implements RequestHandler {
    final String mode;
    final List<String> events = new ArrayList<>();
    final ByteArrayOutputStream body = new ByteArrayOutputStream();
    HttpExchange exchange;
    Throwable abortCause;

    Recorder(String mode) {
      this.mode = mode;
    }

    @Override
    public void onRequest(HttpExchange ex) {
      exchange = ex;
      events.add("request");
      switch (mode) {
        case "throw" -> throw new ConflictException(ConflictException.BUCKET_EXISTS, "bucket 'ais://b' already exists");
        case "head" -> answer(ex, "head");
        default -> { }
      }
    }

    @Override
    public void onContent(HttpExchange ex, HttpContent chunk) {
      ByteBuf c = chunk.content();
      events.add("content:" + c.readableBytes());
      byte[] b = new byte[c.readableBytes()];
      c.getBytes(c.readerIndex(), b);
      body.writeBytes(b);
    }

    @Override
    public void onEnd(HttpExchange ex) {
      events.add("end");
      if (mode.equals("end")) {
        answer(ex, "end");
      }
    }

    @Override
    public void onAbort(HttpExchange ex, Throwable cause) {
      abortCause = cause;
      events.add("abort:" + cause.getClass().getSimpleName());
    }

    private void answer(HttpExchange ex, String how) {
      byte[] text = (how + ":" + ex.path().raw() + ":" + body.size()).getBytes(StandardCharsets.UTF_8);
      var r = new io.netty.handler.codec.http.DefaultFullHttpResponse(io.netty.handler.codec.http.HttpVersion.HTTP_1_1,
          HttpResponseStatus.OK, Unpooled.wrappedBuffer(text));
      io.netty.handler.codec.http.HttpUtil.setContentLength(r, text.length);
      ex.respond(r);
    }
  }
}
