package io.granary.common.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.ClusterJson;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelOption;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The server pipeline as {@link HttpServer} builds it (codec, {@link RequestFraming}, dispatcher), fed raw bytes: a
 * request whose framing cannot be trusted is answered with its error, is never routed, nothing after it on the
 * connection is routed (a body must not become the next request), and the connection closes.
 */
class RequestFramingTest {
  /** A body that is itself a request: if the framing were wrong, it would be routed as one. */
  private static final String SMUGGLED = "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n";

  private final List<String> routed = new ArrayList<>(); // "path:bodyBytes" of every request a handler ended
  private final List<ByteBuf> sent = new ArrayList<>();
  private EmbeddedChannel ch;

  @BeforeEach
  void setUp() {
    Router router = ex -> new RequestHandler() {
      private int body;

      @Override
      public void onRequest(HttpExchange e) {
      }

      @Override
      public void onContent(HttpExchange e, HttpContent chunk) {
        body += chunk.content().readableBytes();
      }

      @Override
      public void onEnd(HttpExchange e) {
        routed.add(e.path().raw() + ":" + body);
        var r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, Unpooled.EMPTY_BUFFER);
        HttpUtil.setContentLength(r, 0);
        e.respond(r);
      }
    };
    ch = new EmbeddedChannel();
    ch.config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
    ch.pipeline()
        .addLast("http", new HttpServerCodec(HttpServer.MAX_INITIAL_LINE, HttpServer.MAX_HEADER_SIZE,
            HttpServer.MAX_CHUNK_SIZE))
        .addLast("framing", new RequestFraming())
        .addLast("dispatch", new HttpDispatcher(router, "n1"));
  }

  @AfterEach
  void tearDown() {
    ch.finishAndReleaseAll();
    assertThat(sent).allSatisfy(b -> assertThat(b.refCnt()).as("inbound buffer released").isZero());
  }

  static List<Arguments> refusedHeads() {
    return List.of(
        Arguments.of("te gzip", "Transfer-Encoding: gzip", 400),
        Arguments.of("te xchunked", "Transfer-Encoding: xchunked", 400),
        Arguments.of("te identity", "Transfer-Encoding: identity", 400),
        Arguments.of("te empty", "Transfer-Encoding: ", 400),
        Arguments.of("te chunked then gzip", "Transfer-Encoding: chunked, gzip", 400),
        Arguments.of("te chunked then gzip on two lines", "Transfer-Encoding: chunked\r\nTransfer-Encoding: gzip", 400),
        Arguments.of("te chunked twice", "Transfer-Encoding: chunked, chunked", 400),
        Arguments.of("te chunked twice on two lines", "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked", 400),
        Arguments.of("te obs-fold", "Transfer-Encoding: gzip\r\n chunked", 400),
        Arguments.of("te obs-fold empty first line", "Transfer-Encoding:\r\n chunked", 400),
        Arguments.of("te space before colon", "Transfer-Encoding : chunked", 400),
        Arguments.of("te with content-length", "Transfer-Encoding: chunked\r\nContent-Length: 5", 400),
        Arguments.of("te gzip with content-length", "Transfer-Encoding: gzip\r\nContent-Length: 5", 400),
        Arguments.of("te gzip before chunked", "Transfer-Encoding: gzip, chunked", 501),
        Arguments.of("te gzip before chunked on two lines", "Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked",
            501));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("refusedHeads")
  void untrustedTransferEncoding_refusedAndClosed_bodyNeverParsedAsARequest(String name, String headers, int status)
      throws Exception {
    String body = Integer.toHexString(SMUGGLED.length()) + "\r\n" + SMUGGLED + "\r\n0\r\n\r\n";
    send("PUT /obj HTTP/1.1\r\nHost: x\r\n" + headers + "\r\n\r\n" + body + SMUGGLED);

    assertRefusedAndClosed(status);
  }

  static List<Arguments> refusedContentLengths() {
    return List.of(
        Arguments.of("5, 5"), Arguments.of("0x5"), Arguments.of("-5"), Arguments.of("+5"), Arguments.of("5 5"),
        Arguments.of("99999999999999999999999"), Arguments.of("5\r\nContent-Length: 5"),
        Arguments.of("5\r\nContent-Length: 6"));
  }

  @ParameterizedTest(name = "Content-Length: {0}")
  @MethodSource("refusedContentLengths")
  void malformedContentLength_refusedAndClosed(String value) throws Exception {
    send("PUT /obj HTTP/1.1\r\nHost: x\r\nContent-Length: " + value + "\r\n\r\nhello" + SMUGGLED);

    assertRefusedAndClosed(400);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("unknownVersions")
  void unknownHttpVersion_is505_andClosed(String version) throws Exception {
    send("GET /obj " + version + "\r\nHost: x\r\n\r\n" + SMUGGLED);

    JsonNode error = assertRefusedAndClosed(505);
    assertThat(error.get("code").asText()).isEqualTo("HttpVersionNotSupported");
  }

  static List<String> unknownVersions() {
    return List.of("HTTP/9.9", "HTTP/2.0", "HTTP/1.2", "HTTP/0.9");
  }

  @Test
  void http10WithTransferEncoding_is400_andClosed() throws Exception {
    send("PUT /obj HTTP/1.0\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n" + SMUGGLED);

    assertRefusedAndClosed(400);
  }

  @Test
  void malformedChunkSize_is400_andNothingAfterItIsRouted() throws Exception {
    send("PUT /obj HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n" + SMUGGLED);

    assertRefusedAndClosed(400);
  }

  @Test
  void chunkedAnyCase_andContentLength_areServed_andKeepTheConnection() {
    send("PUT /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: CHUNKED\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
        + "PUT /b HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
        + "PUT /c HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nabcd"
        + "GET /d HTTP/1.0\r\nHost: x\r\n\r\n");

    assertThat(routed).containsExactly("/a:5", "/b:3", "/c:4", "/d:0");
    String out = drain();
    assertThat(out.split("HTTP/1.1 200 OK", -1)).hasSize(5);
  }

  /** One error answer with Connection: close, output shut at once, the channel closed after the linger. */
  private JsonNode assertRefusedAndClosed(int status) throws Exception {
    String out = drain();
    assertThat(out).startsWith("HTTP/1.1 " + status + " ");
    int headEnd = out.indexOf("\r\n\r\n") + 4;
    String head = out.substring(0, headEnd).toLowerCase(java.util.Locale.ROOT);
    assertThat(head).contains("connection: close");
    int length = Integer.parseInt(head.replaceAll("(?s).*content-length: (\\d+).*", "$1"));
    assertThat(out.length()).as("exactly one answer: %s", out).isEqualTo(headEnd + length);
    assertThat(routed).as("neither the refused request nor anything after it is routed").isEmpty();
    ch.advanceTimeBy(3, TimeUnit.SECONDS);
    ch.runScheduledPendingTasks();
    assertThat(ch.isOpen()).as("closed after the answer").isFalse();
    return ClusterJson.mapper().readTree(out.substring(headEnd));
  }

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
}
