package io.granary.target;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.sun.net.httpserver.HttpServer;
import io.granary.common.control.ControlClient;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Which answers of a primary mean "still starting, ask again" to a target deciding whether to rehearse its join. */
class PrimaryStartingTest {
  private final ControlClient client = new ControlClient(Duration.ofSeconds(5), Executors.newCachedThreadPool());

  @Test
  void nothingListening_isStarting() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    assertThat(TargetNode.primaryStarting(failureOf("http://127.0.0.1:" + port + "/v1/buckets"))).isTrue();
  }

  @Test
  void aPrimaryWithoutACluster_503_isStarting_otherErrorsAreNot() throws Exception {
    HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", ex -> {
      int status = Integer.parseInt(ex.getRequestURI().getPath().substring(1));
      byte[] body = ("{\"code\":\"NoTargets\",\"message\":\"node p1 has not joined a cluster yet\"}")
          .getBytes(StandardCharsets.UTF_8);
      ex.sendResponseHeaders(status, body.length);
      ex.getResponseBody().write(body);
      ex.close();
    });
    server.start();
    try {
      String base = "http://127.0.0.1:" + server.getAddress().getPort() + "/";
      assertThat(TargetNode.primaryStarting(failureOf(base + "503"))).isTrue();
      assertThat(TargetNode.primaryStarting(failureOf(base + "500"))).isFalse();
      assertThat(TargetNode.primaryStarting(failureOf(base + "403"))).isFalse();
    } finally {
      server.stop(0);
    }
  }

  private Throwable failureOf(String url) {
    Throwable t = catchThrowable(() -> client.get(url, Map.class).get(10, TimeUnit.SECONDS));
    assertThat(t).isInstanceOf(ExecutionException.class);
    return t.getCause();
  }
}
