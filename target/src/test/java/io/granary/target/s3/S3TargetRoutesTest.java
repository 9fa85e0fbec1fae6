package io.granary.target.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.common.http.HttpDispatcher;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestFraming;
import io.granary.common.http.RequestHandler;
import io.granary.target.http.ObjectApi;
import io.granary.target.http.ObjectHandlers;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.storage.PutOperation;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelOption;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The target's S3 routes, as a proxy reaches them: a DeleteObject relayed with a body runs only once the proxy has
 * sent the body's end, which it withholds when the body fails verification (then it drops the connection).
 */
class S3TargetRoutesTest {
  private final List<String> deletes = new ArrayList<>();
  private final List<ByteBuf> sent = new ArrayList<>();
  private EmbeddedChannel ch;

  @BeforeEach
  void setUp() {
    S3TargetRoutes routes = new S3TargetRoutes(null, null, null, null, null, null, new RecordingHandlers());
    ch = new EmbeddedChannel();
    ch.config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
    ch.pipeline()
        .addLast("http", new HttpServerCodec())
        .addLast("framing", new RequestFraming())
        .addLast("dispatch", new HttpDispatcher(routes::route, "t1"));
  }

  @AfterEach
  void tearDown() {
    ch.finishAndReleaseAll();
    assertThat(sent).allSatisfy(b -> assertThat(b.refCnt()).isZero());
  }

  @Test
  void deleteObject_withBody_proxyDropsConnectionBeforeTheEnd_deletesNothing() {
    send("DELETE /s3/b/k HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n");
    assertThat(deletes).isEmpty();

    ch.close(); // what the proxy does when the body does not match x-amz-content-sha256

    assertThat(deletes).isEmpty();
  }

  @Test
  void deleteObject_withBody_deletesOnceTheBodyEnds() {
    send("DELETE /s3/b/k HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n");
    assertThat(deletes).isEmpty();

    send("0\r\n\r\n");

    assertThat(deletes).containsExactly("/s3/b/k");
  }

  @Test
  void deleteObject_withoutBody_deletesOnTheHead() {
    send("DELETE /s3/b/k HTTP/1.1\r\nHost: t\r\n\r\n");

    assertThat(deletes).containsExactly("/s3/b/k");
  }

  private void send(String raw) {
    ByteBuf b = Unpooled.copiedBuffer(raw, StandardCharsets.ISO_8859_1);
    sent.add(b);
    ch.writeInbound(b);
  }

  /** Object handlers whose DELETE records that it ran, in onRequest as the real one does, and answers 204. */
  private final class RecordingHandlers implements ObjectHandlers {
    @Override
    public RequestHandler get(ObjectApi api) {
      throw new UnsupportedOperationException();
    }

    @Override
    public RequestHandler put(ObjectApi api) {
      throw new UnsupportedOperationException();
    }

    @Override
    public RequestHandler delete(ObjectApi api) {
      return (HttpExchange ex) -> {
        deletes.add(ex.path().raw());
        ex.sendHead(HttpResponseStatus.NO_CONTENT, null);
      };
    }

    @Override
    public ObjectMeta commit(PutOperation op) {
      throw new UnsupportedOperationException();
    }
  }
}
