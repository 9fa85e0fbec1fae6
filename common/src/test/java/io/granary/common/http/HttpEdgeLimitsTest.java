package io.granary.common.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.ClusterJson;
import io.granary.common.error.RequestTimeoutException;
import io.granary.common.error.RouteNotFoundException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelOption;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.timeout.IdleStateEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The edge limits on the real connection pipeline ({@link HttpChannelInitializer}: head deadline, codec, framing,
 * idle handler, dispatcher) in an {@link EmbeddedChannel} whose clock the test moves: the head timeout, the body
 * timeout (the idle handler's reader-idle event, fired by the test since that handler reads the wall clock) and the
 * connection cap with its reserve.
 */
class HttpEdgeLimitsTest {
  private static final HttpLimits LIMITS = new HttpLimits(Duration.ofSeconds(10), Duration.ofSeconds(20),
      Duration.ofMinutes(5), 100);
  private final List<HttpDispatcherTest.Recorder> handlers = new ArrayList<>();
  private final List<Integer> reported = new ArrayList<>(); // statuses the exchange listener was told of
  private final EdgeCounters counters = new EdgeCounters();
  private final List<EmbeddedChannel> channels = new ArrayList<>();

  private final Router router = ex -> {
    String p = ex.path().raw();
    if (!(p.startsWith("/end/") || p.startsWith("/async/"))) {
      throw new RouteNotFoundException(p);
    }
    HttpDispatcherTest.Recorder r = new HttpDispatcherTest.Recorder(p.substring(1, p.indexOf('/', 1)));
    handlers.add(r);
    return r;
  };

  @AfterEach
  void tearDown() {
    channels.forEach(EmbeddedChannel::finishAndReleaseAll);
  }

  private EmbeddedChannel connect(ConnectionCap cap, Predicate<HttpRequest> clusterRequest) {
    EmbeddedChannel ch = new EmbeddedChannel();
    ch.config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
    ch.freezeTime();
    ch.pipeline().addLast(new HttpChannelInitializer(router, "n1",
        (method, status, nanos, in, out) -> reported.add(status), LIMITS, cap, counters, clusterRequest));
    channels.add(ch);
    return ch;
  }

  private EmbeddedChannel connect() {
    return connect(new ConnectionCap("n1", 100, 10, counters), req -> false);
  }

  // ---------------------------------------------------------------- head timeout

  @Test
  void headTimeout_partialHead_answers408_thenCloses() throws Exception {
    EmbeddedChannel ch = connect();
    send(ch, "PUT /end/o HTTP/1.1\r\nHost: x\r\nContent-Le");
    elapse(ch, 9);
    assertThat(drain(ch)).isEmpty();
    elapse(ch, 1);
    HttpDispatcherTest.Resp r = single(ch);
    assertThat(r.status()).isEqualTo(408);
    assertThat(code(r)).isEqualTo("RequestTimeout");
    assertThat(r.header("connection")).isEqualToIgnoringCase("close");
    elapse(ch, 3); // the lingering close
    assertThat(ch.isOpen()).isFalse();
    assertThat(counters.headTimeouts()).isEqualTo(1);
    assertThat(handlers).as("nothing was routed").isEmpty();
    assertThat(reported).as("a head that never arrived is no request for the request metrics").isEmpty();
  }

  @Test
  void headTimeout_slowloris_headTrickling_isCutOffAtTheDeadlineOfItsFirstByte() {
    EmbeddedChannel ch = connect();
    String head = "GET /end/o HTTP/1.1\r\nHost: x\r\n";
    for (int i = 0; i < 9; i++) { // a byte a second never lets the connection go idle
      send(ch, head.substring(i, i + 1));
      elapse(ch, 1);
    }
    assertThat(drain(ch)).isEmpty();
    send(ch, head.substring(9, 10));
    elapse(ch, 1);
    assertThat(single(ch).status()).isEqualTo(408);
  }

  @Test
  void headTimeout_newConnectionSendingNothing_isClosedUnanswered() {
    EmbeddedChannel ch = connect();
    elapse(ch, 10);
    assertThat(ch.isOpen()).isFalse();
    assertThat(drain(ch)).isEmpty();
    assertThat(counters.headTimeouts()).isEqualTo(1);
  }

  @Test
  void headTimeout_keptAliveConnectionBetweenRequests_isNotCutOff_andTheNextHeadHasItsOwnClock() {
    EmbeddedChannel ch = connect();
    send(ch, "GET /end/a HTTP/1.1\r\nHost: x\r\n\r\n");
    assertThat(single(ch).status()).isEqualTo(200);
    elapse(ch, 60); // idle between requests: the idle timeout's business, not the head timeout's
    assertThat(ch.isOpen()).isTrue();
    send(ch, "GET /end/b HTTP/1.1\r\n");
    elapse(ch, 9);
    send(ch, "Host: x\r\n\r\n");
    assertThat(single(ch).status()).isEqualTo(200);
    elapse(ch, 60);
    assertThat(ch.isOpen()).isTrue();
    assertThat(counters.headTimeouts()).isZero();
  }

  // ---------------------------------------------------------------- body timeout

  @Test
  void bodyTimeout_stalledBody_abortsTheHandler_answers408_andCloses() throws Exception {
    EmbeddedChannel ch = connect();
    send(ch, "PUT /end/o HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc");
    elapse(ch, 15); // the head deadline (10 s) is off once the head is here; the body's first window (20 s) not over
    assertThat(drain(ch)).isEmpty();
    ch.pipeline().fireUserEventTriggered(IdleStateEvent.FIRST_READER_IDLE_STATE_EVENT);
    HttpDispatcherTest.Resp r = single(ch);
    assertThat(r.status()).isEqualTo(408);
    assertThat(code(r)).isEqualTo("RequestTimeout");
    assertThat(r.header("connection")).isEqualToIgnoringCase("close");
    assertThat(handlers.get(0).events).containsExactly("request", "content:3", "abort:RequestTimeoutException");
    assertThat(handlers.get(0).abortCause).isInstanceOf(RequestTimeoutException.class);
    elapse(ch, 3);
    assertThat(ch.isOpen()).isFalse();
    assertThat(counters.bodyTimeouts()).isEqualTo(1);
  }

  @Test
  void bodyTimeout_readerIdleWithNoBodyAwaited_changesNothing() {
    EmbeddedChannel ch = connect();
    send(ch, "GET /end/a HTTP/1.1\r\nHost: x\r\n\r\n");
    assertThat(single(ch).status()).isEqualTo(200);
    ch.pipeline().fireUserEventTriggered(IdleStateEvent.FIRST_READER_IDLE_STATE_EVENT);
    send(ch, "GET /async/b HTTP/1.1\r\nHost: x\r\n\r\n"); // complete, its answer pending
    ch.pipeline().fireUserEventTriggered(IdleStateEvent.READER_IDLE_STATE_EVENT);
    assertThat(drain(ch)).isEmpty();
    assertThat(ch.isOpen()).isTrue();
    assertThat(handlers.get(1).events).containsExactly("request", "content:0", "end");
    assertThat(counters.bodyTimeouts()).isZero();
  }

  @Test
  void minBodyRate_aTrickle_isAbortedAtTheEndOfItsWindow_answers408_andCloses() throws Exception {
    EmbeddedChannel ch = connect();
    send(ch, "PUT /end/o HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n");
    for (int s = 0; s < 19; s++) { // a byte a second never stalls, and is far under 500 B/s
      send(ch, "x");
      elapse(ch, 1);
    }
    assertThat(drain(ch)).isEmpty();
    send(ch, "x");
    elapse(ch, 1);
    HttpDispatcherTest.Resp r = single(ch);
    assertThat(r.status()).isEqualTo(408);
    assertThat(code(r)).isEqualTo("RequestTimeout");
    assertThat(r.body()).contains("under the minimum rate of 500 B/s");
    assertThat(r.header("connection")).isEqualToIgnoringCase("close");
    assertThat(handlers.get(0).events).last().isEqualTo("abort:RequestTimeoutException");
    elapse(ch, 3);
    assertThat(ch.isOpen()).isFalse();
    assertThat(counters.bodyTimeouts()).isEqualTo(1);
  }

  @Test
  void minBodyRate_aBodyAtTheRate_orEndingWithinTheWindow_goesOn() throws Exception {
    EmbeddedChannel ch = connect();
    send(ch, "PUT /end/o HTTP/1.1\r\nHost: x\r\nContent-Length: 30100\r\n\r\n");
    send(ch, "y".repeat(10_000)); // 500 B/s over the 20 s window
    elapse(ch, 20);
    send(ch, "y".repeat(20_000));
    elapse(ch, 20);
    assertThat(drain(ch)).isEmpty();
    elapse(ch, 15);
    send(ch, "y".repeat(100)); // the rest, under a window's minimum, ends within the window: nothing more is due
    assertThat(single(ch).status()).isEqualTo(200);
    elapse(ch, 20);
    assertThat(handlers.get(0).events).last().isEqualTo("end");
    assertThat(counters.bodyTimeouts()).isZero();
  }

  // ---------------------------------------------------------------- connection cap

  @Test
  void cap_connectionsBeyondCapAndReserve_areClosedAtAccept() {
    ConnectionCap cap = new ConnectionCap("n1", 2, 1, counters);
    EmbeddedChannel a = connect(cap, req -> false);
    EmbeddedChannel b = connect(cap, req -> false);
    EmbeddedChannel reserve = connect(cap, req -> false);
    EmbeddedChannel refused = connect(cap, req -> false);
    assertThat(List.of(a.isOpen(), b.isOpen(), reserve.isOpen(), refused.isOpen()))
        .containsExactly(true, true, true, false);
    assertThat(cap.open()).isEqualTo(3);
    assertThat(counters.refusedClosed()).isEqualTo(1);

    a.close(); // places free up: the next connection is served
    reserve.close();
    assertThat(cap.open()).isEqualTo(1);
    EmbeddedChannel next = connect(cap, req -> false);
    assertThat(next.isOpen()).isTrue();
    send(next, "GET /end/a HTTP/1.1\r\nHost: x\r\n\r\n");
    assertThat(single(next).status()).isEqualTo(200);
  }

  @Test
  void cap_reserveConnection_answersClientRequests503WithRetryAfter_andCloses() throws Exception {
    ConnectionCap cap = new ConnectionCap("n1", 1, 1, counters);
    EmbeddedChannel served = connect(cap, req -> false);
    EmbeddedChannel reserve = connect(cap, req -> false);
    send(reserve, "PUT /end/o HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc");
    HttpDispatcherTest.Resp r = single(reserve);
    assertThat(r.status()).isEqualTo(503);
    assertThat(code(r)).isEqualTo("TooManyConnections");
    assertThat(r.header("retry-after")).isEqualTo("1");
    assertThat(r.header("connection")).isEqualToIgnoringCase("close");
    elapse(reserve, 3);
    assertThat(reserve.isOpen()).isFalse();
    assertThat(handlers).as("nothing was routed").isEmpty();
    assertThat(counters.refusedAnswered()).isEqualTo(1);

    // The connection within the cap is served as before.
    send(served, "GET /end/a HTTP/1.1\r\nHost: x\r\n\r\n");
    assertThat(single(served).status()).isEqualTo(200);
  }

  @Test
  void cap_reserveConnection_servesRequestsSignedByTheCluster() {
    ConnectionCap cap = new ConnectionCap("n1", 1, 1, counters);
    connect(cap, req -> false);
    EmbeddedChannel reserve = connect(cap, req -> req.headers().contains("x-signed"));
    send(reserve, "GET /end/a HTTP/1.1\r\nHost: x\r\nx-signed: 1\r\n\r\n");
    assertThat(single(reserve).status()).isEqualTo(200);
    assertThat(reserve.isOpen()).isTrue();
    send(reserve, "GET /end/b HTTP/1.1\r\nHost: x\r\n\r\n"); // the same connection, unsigned
    assertThat(single(reserve).status()).isEqualTo(503);
    assertThat(counters.refusedAnswered()).isEqualTo(1);
  }

  // ---------------------------------------------------------------- settings

  @Test
  void limits_impossibleValues_areRefusedNamingTheFlag() {
    Duration s = Duration.ofSeconds(1);
    assertThatThrownBy(() -> new HttpLimits(Duration.ZERO, s, s, 1)).hasMessageContaining("--head-timeout");
    assertThatThrownBy(() -> new HttpLimits(s, Duration.ofSeconds(-5), s, 1)).hasMessageContaining("--body-timeout");
    assertThatThrownBy(() -> new HttpLimits(s, s, Duration.ofNanos(10), 1)).hasMessageContaining("--idle-timeout");
    assertThatThrownBy(() -> new HttpLimits(s, s, s, 0)).hasMessageContaining("--max-connections");
    assertThatThrownBy(() -> new HttpLimits(s, s, s, -1)).hasMessageContaining("--max-connections");
    assertThatThrownBy(() -> new HttpLimits(s, s, s, 1, -1)).hasMessageContaining("--min-body-rate");
  }

  @Test
  void limits_defaultCap_isHalfTheFileLimitWhenThatIsLower() {
    assertThat(HttpLimits.defaultMaxConnections(1_048_576)).isEqualTo(4096);
    assertThat(HttpLimits.defaultMaxConnections(1024)).isEqualTo(512);
    assertThat(HttpLimits.defaultMaxConnections(-1)).isEqualTo(4096);
    assertThat(new HttpLimits(Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(1), 4096).reserve())
        .isEqualTo(256);
    assertThat(new HttpLimits(Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(1), 10).reserve())
        .isEqualTo(32);
  }

  // ---------------------------------------------------------------- helpers

  private static void send(EmbeddedChannel ch, String raw) {
    ch.writeInbound(Unpooled.copiedBuffer(raw, StandardCharsets.ISO_8859_1));
  }

  private static void elapse(EmbeddedChannel ch, long seconds) {
    ch.advanceTimeBy(seconds, TimeUnit.SECONDS);
    ch.runScheduledPendingTasks();
    ch.runPendingTasks();
  }

  private static String drain(EmbeddedChannel ch) {
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

  private static HttpDispatcherTest.Resp single(EmbeddedChannel ch) {
    List<HttpDispatcherTest.Resp> rs = HttpDispatcherTest.parse(drain(ch));
    assertThat(rs).hasSize(1);
    return rs.get(0);
  }

  private static String code(HttpDispatcherTest.Resp r) throws Exception {
    JsonNode json = ClusterJson.mapper().readTree(r.body());
    return json.get("code").asText();
  }
}
