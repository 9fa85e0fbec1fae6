package io.granary.common.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.common.control.ControlClient;
import io.granary.common.error.ObjectNotFoundException;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** {@link LoopbackWarmUp} against a real server on loopback: every request is sent and answered, errors too. */
class LoopbackWarmUpTest {

  @Test
  void run_sendsEveryPathEveryRound_andWaitsForTheAnswers() throws Exception {
    Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();
    Router router = ex -> exchange -> {
      seen.computeIfAbsent(exchange.path().raw(), k -> new AtomicInteger()).incrementAndGet();
      if (exchange.path().raw().equals("/missing")) {
        exchange.sendError(new ObjectNotFoundException("b", "missing"));
      } else {
        exchange.sendJson(HttpResponseStatus.OK, Map.of("ok", true));
      }
    };
    Transport transport = Transport.best();
    EventLoopGroup workers = transport.newGroup(2, "warm-up-test");
    HttpServer server = HttpServer.start("127.0.0.1", 0, router, "n1", transport, workers, 60);
    try {
      ControlClient client = new ControlClient(Duration.ofSeconds(10), null);
      LoopbackWarmUp.Result r = LoopbackWarmUp.run(client, LoopbackWarmUp.baseUrl("0.0.0.0", server.port()),
          List.of("/ok", "/missing"), 50, 4, 60_000);

      assertThat(r.requests()).isEqualTo(100);
      assertThat(r.failed()).as("the 404s").isEqualTo(50);
      assertThat(seen.get("/ok")).hasValue(50);
      assertThat(seen.get("/missing")).hasValue(50);
    } finally {
      server.close();
      workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
    }
  }

  @Test
  void baseUrl_reachesAWildcardBindThroughLoopback() {
    assertThat(LoopbackWarmUp.baseUrl("0.0.0.0", 80)).isEqualTo("http://127.0.0.1:80");
    assertThat(LoopbackWarmUp.baseUrl("::", 80)).isEqualTo("http://127.0.0.1:80");
    assertThat(LoopbackWarmUp.baseUrl("10.1.2.3", 81)).isEqualTo("http://10.1.2.3:81");
    assertThat(LoopbackWarmUp.baseUrl("fd00::1", 82)).isEqualTo("http://[fd00::1]:82");
  }
}
