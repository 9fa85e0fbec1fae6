package io.granary.common.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.granary.common.error.ApiException;
import io.granary.common.error.BadRequestException;
import io.granary.common.http.HttpDispatcher;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.common.http.RequestPath;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** ListParams needs an HttpExchange, so each case sends a real request through the dispatcher. */
class ListParamsTest {

  @Test
  void parse_noQuery_usesDefaults() {
    assertThat(parse("")).isEqualTo(new ListParams("", null, ListParams.DEFAULT_LIMIT));
  }

  @Test
  void parse_allParameters_areTaken() {
    assertThat(parse("prefix=dir/&start-after=dir/b&limit=7")).isEqualTo(new ListParams("dir/", "dir/b", 7));
  }

  @Test
  void parse_percentEncodedValues_areDecoded() {
    String q = "prefix=" + RequestPath.encodePath("ü ") + "&start-after=" + RequestPath.encodePath("😀&x");
    assertThat(parse(q)).isEqualTo(new ListParams("ü ", "😀&x", ListParams.DEFAULT_LIMIT));
  }

  @Test
  void parse_rawUtf8Values_areDecodedAsUtf8() {
    // Sent unescaped, as curl does; Netty hands the request line over as ISO-8859-1 chars.
    assertThat(parse("prefix=ü/&start-after=ü/😀")).isEqualTo(new ListParams("ü/", "ü/😀", ListParams.DEFAULT_LIMIT));
  }

  @ParameterizedTest
  @ValueSource(strings = {"prefix=%zz", "prefix=a%", "start-after=%4", "limit=%g1"})
  void parse_malformedEscapeInQuery_isInvalidUri(String query) {
    assertThatThrownBy(() -> parse(query))
        .isInstanceOfSatisfying(BadRequestException.class,
            e -> assertThat(e.code()).isEqualTo(BadRequestException.INVALID_URI));
  }

  @Test
  void parse_emptyValues_meanDefaults() {
    assertThat(parse("prefix=&start-after=&limit=&token=")).isEqualTo(new ListParams("", null, ListParams.DEFAULT_LIMIT));
  }

  @ParameterizedTest
  @ValueSource(strings = {"1", "10000"})
  void parse_limitAtBounds_isAccepted(String limit) {
    assertThat(parse("limit=" + limit).limit()).isEqualTo(Integer.parseInt(limit));
  }

  @ParameterizedTest
  @ValueSource(strings = {"0", "10001", "-1", "abc", "1.5", "99999999999"})
  void parse_limitOutOfRangeOrNotANumber_isInvalidArgument(String limit) {
    assertThatThrownBy(() -> parse("limit=" + limit))
        .isInstanceOfSatisfying(BadRequestException.class, e -> {
          assertThat(e.code()).isEqualTo(BadRequestException.INVALID_ARGUMENT);
          assertThat(e.getMessage()).contains("1 to 10000", limit);
        });
  }

  @ParameterizedTest
  @ValueSource(strings = {"a", "dir/file.txt", "ü/é", "😀", "\uFFFD", "name with spaces+plus"})
  void token_roundTripsToStartAfter(String name) {
    String token = ListParams.token(name);
    assertThat(token).matches("[A-Za-z0-9_-]+");
    assertThat(parse("token=" + token).startAfter()).isEqualTo(name);
  }

  @Test
  void parse_tokenAndStartAfter_laterOneWins() {
    assertThat(parse("start-after=b&token=" + ListParams.token("a")).startAfter()).isEqualTo("b");
    assertThat(parse("start-after=b&token=" + ListParams.token("c")).startAfter()).isEqualTo("c");
  }

  @Test
  void parse_tokenAndStartAfter_comparedInUtf8ByteOrder() {
    // U+1F600 sorts after U+FFFD in UTF-8 bytes, though String.compareTo puts its surrogates first.
    assertThat("😀".compareTo("\uFFFD")).isNegative();
    String q = "start-after=" + RequestPath.encodePath("\uFFFD") + "&token=" + ListParams.token("😀");
    assertThat(parse(q).startAfter()).isEqualTo("😀");
    String q2 = "start-after=" + RequestPath.encodePath("😀") + "&token=" + ListParams.token("\uFFFD");
    assertThat(parse(q2).startAfter()).isEqualTo("😀");
  }

  @Test
  void parse_tokenNotBase64_isInvalidArgument() {
    assertThatThrownBy(() -> parse("token=" + RequestPath.encodePath("not a token!")))
        .isInstanceOfSatisfying(BadRequestException.class,
            e -> assertThat(e.code()).isEqualTo(BadRequestException.INVALID_ARGUMENT));
  }

  @Test
  void parse_tokenOfInvalidUtf8_isInvalidArgument() {
    String token = Base64.getUrlEncoder().withoutPadding().encodeToString(new byte[] {'a', (byte) 0xff});
    assertThatThrownBy(() -> parse("token=" + token))
        .isInstanceOfSatisfying(BadRequestException.class,
            e -> assertThat(e.code()).isEqualTo(BadRequestException.INVALID_ARGUMENT));
  }

  // ---------------------------------------------------------------- harness

  /** Sends {@code GET /list?query} through the real codec and dispatcher and parses the exchange's parameters. */
  private static ListParams parse(String query) {
    AtomicReference<ListParams> result = new AtomicReference<>();
    AtomicReference<ApiException> error = new AtomicReference<>();
    RequestHandler handler = new RequestHandler() {
      @Override
      public void onRequest(HttpExchange ex) {
        try {
          result.set(ListParams.parse(ex));
          ex.sendHead(HttpResponseStatus.NO_CONTENT, null);
        } catch (ApiException e) {
          error.set(e);
          throw e;
        }
      }
    };
    EmbeddedChannel ch = new EmbeddedChannel(new HttpServerCodec(), new HttpDispatcher(ex -> handler, "n1"));
    try {
      String target = "/list" + (query.isEmpty() ? "" : "?" + query);
      ch.writeInbound(Unpooled.copiedBuffer("GET " + target + " HTTP/1.1\r\nHost: x\r\n\r\n", StandardCharsets.UTF_8));
      String status = firstLine(ch);
      if (error.get() != null) {
        assertThat(status).startsWith("HTTP/1.1 400");
        throw error.get();
      }
      assertThat(status).startsWith("HTTP/1.1 204");
      return result.get();
    } finally {
      ch.finishAndReleaseAll();
    }
  }

  private static String firstLine(EmbeddedChannel ch) {
    StringBuilder sb = new StringBuilder();
    for (Object o = ch.readOutbound(); o != null; o = ch.readOutbound()) {
      ByteBuf b = (ByteBuf) o;
      try {
        sb.append(b.toString(StandardCharsets.US_ASCII));
      } finally {
        b.release();
      }
    }
    int eol = sb.indexOf("\r\n");
    return eol < 0 ? sb.toString() : sb.substring(0, eol);
  }
}
