package io.granary.common.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@code --send-buffer}: client connections of a real listener get it as SO_SNDBUF; impossible values refused. */
class SendBufferTest {
  /** Starts a listener whose one route answers with its connection's SO_SNDBUF as the kernel reports it. */
  private static int reportedSendBuffer(HttpLimits limits) throws Exception {
    Transport transport = Transport.best();
    EventLoopGroup workers = transport.newGroup(1, "sndbuf-test");
    Router router = ex -> exchange -> exchange.sendJson(HttpResponseStatus.OK,
        Map.of("sndbuf", exchange.channel().config().getOption(ChannelOption.SO_SNDBUF)));
    HttpServer server = HttpServer.start("127.0.0.1", 0, router, "n1", transport, workers, limits, false,
        ExchangeListener.NONE, req -> false);
    try {
      HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
          URI.create("http://127.0.0.1:" + server.port() + "/x")).timeout(Duration.ofSeconds(10)).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(200);
      return Integer.parseInt(r.body().replaceAll("[^0-9]", ""));
    } finally {
      server.close();
      workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
    }
  }

  @Test
  void clientConnections_getTheConfiguredSendBuffer() throws Exception {
    // Linux reports twice what was set (its bookkeeping overhead); the autotuned default starts elsewhere.
    int set = reportedSendBuffer(HttpLimits.DEFAULTS);
    assertThat(set).isIn(HttpLimits.DEFAULT_SEND_BUFFER, 2 * HttpLimits.DEFAULT_SEND_BUFFER);
    HttpLimits auto = new HttpLimits(HttpLimits.DEFAULT_HEAD_TIMEOUT, HttpLimits.DEFAULT_BODY_TIMEOUT,
        HttpLimits.DEFAULT_IDLE_TIMEOUT, 64, HttpLimits.DEFAULT_MIN_BODY_RATE, 0);
    assertThat(reportedSendBuffer(auto)).as("left to the kernel").isNotIn(HttpLimits.DEFAULT_SEND_BUFFER,
        2 * HttpLimits.DEFAULT_SEND_BUFFER);
  }

  @Test
  void impossibleSendBuffers_areRefused() {
    for (int bad : new int[] {-1, 1, 4095}) {
      assertThatThrownBy(() -> new HttpLimits(HttpLimits.DEFAULT_HEAD_TIMEOUT, HttpLimits.DEFAULT_BODY_TIMEOUT,
          HttpLimits.DEFAULT_IDLE_TIMEOUT, 64, HttpLimits.DEFAULT_MIN_BODY_RATE, bad))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--send-buffer");
    }
    assertThat(HttpLimits.DEFAULTS.describe()).endsWith("send-buffer=131072");
  }
}
