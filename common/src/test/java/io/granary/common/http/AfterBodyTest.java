package io.granary.common.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.common.error.BadRequestException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelOption;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.LastHttpContent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link AfterBody} behind the real codec and dispatcher: a handler served from the head (as DELETE is) acts only
 * once a body sent with it is whole and checked, and never when the body is cut short or fails its check.
 */
class AfterBodyTest {
  private final List<String> events = new ArrayList<>();
  private final List<ByteBuf> sent = new ArrayList<>();
  private AfterBody.Check check = AfterBody.Check.NONE;
  private EmbeddedChannel ch;

  @BeforeEach
  void setUp() {
    // The wrapped handler "deletes" in onRequest and answers 204 at once, as ObjectDeleteHandler does.
    RequestHandler delete = new RequestHandler() {
      @Override
      public void onRequest(HttpExchange ex) {
        events.add("deleted");
        ex.sendHead(HttpResponseStatus.NO_CONTENT, null);
      }

      @Override
      public void onEnd(HttpExchange ex) {
        events.add("end");
      }

      @Override
      public void onAbort(HttpExchange ex, Throwable cause) {
        events.add("abort");
      }
    };
    Router router = ex -> AfterBody.of(ex, delete, chunk -> check.accept(chunk));
    ch = new EmbeddedChannel();
    ch.config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
    ch.pipeline()
        .addLast("http", new HttpServerCodec())
        .addLast("framing", new RequestFraming())
        .addLast("dispatch", new HttpDispatcher(router, "n1"));
  }

  @AfterEach
  void tearDown() {
    ch.finishAndReleaseAll();
    assertThat(sent).allSatisfy(b -> assertThat(b.refCnt()).as("inbound buffer released").isZero());
  }

  @Test
  void noBody_handlerRunsOnTheHead() {
    send("DELETE /o HTTP/1.1\r\nHost: x\r\n\r\n");

    assertThat(events).containsExactly("deleted");
    assertThat(drain()).startsWith("HTTP/1.1 204 ");
  }

  @Test
  void body_handlerRunsOnlyOnceItIsWhole() {
    send("DELETE /o HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n");
    assertThat(events).as("nothing done while the body streams").isEmpty();
    assertThat(drain()).isEmpty();

    send("0\r\n\r\n");
    assertThat(events).containsExactly("deleted", "end");
    assertThat(drain()).startsWith("HTTP/1.1 204 ");
  }

  @Test
  void bodyCutShort_handlerNeverRuns() {
    send("DELETE /o HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nhello");
    ch.pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);

    assertThat(events).isEmpty();
    assertThat(drain()).startsWith("HTTP/1.1 400 ").contains("IncompleteBody");
  }

  @Test
  void connectionClosedMidBody_handlerNeverRuns() {
    send("DELETE /o HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n");
    ch.close();

    assertThat(events).isEmpty();
  }

  @Test
  void bodyFailingItsCheckAtTheEnd_handlerNeverRuns_andTheRefusalIsAnswered() {
    check = chunk -> {
      if (chunk instanceof LastHttpContent) {
        throw new BadRequestException("XAmzContentSHA256Mismatch", "nothing was changed");
      }
    };
    send("DELETE /o HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello");

    assertThat(events).isEmpty();
    assertThat(drain()).startsWith("HTTP/1.1 400 ").contains("XAmzContentSHA256Mismatch");
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
