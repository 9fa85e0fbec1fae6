package io.granary.common.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.channel.EventLoopGroup;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link HttpServer#drain}, a node's graceful stop, on a real listener over loopback with raw sockets: it stops
 * accepting, closes idle keep-alive connections at once, lets a request in flight finish (its answer closing the
 * connection), and gives up on the grace.
 */
class HttpServerDrainTest {
  private final CompletableFuture<HttpExchange> held = new CompletableFuture<>();
  private EventLoopGroup workers;
  private HttpServer server;

  @BeforeEach
  void start() throws Exception {
    Transport transport = Transport.best();
    workers = transport.newGroup(2, "drain-test");
    Router router = ex -> exchange -> {
      if (exchange.path().raw().equals("/slow")) {
        held.complete(exchange); // answered by the test
      } else {
        exchange.sendJson(HttpResponseStatus.OK, Map.of("fast", true));
      }
    };
    server = HttpServer.start("127.0.0.1", 0, router, "n1", transport, workers, 60);
  }

  @AfterEach
  void stop() {
    server.close();
    workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
  }

  private Socket connect() throws IOException {
    Socket s = new Socket("127.0.0.1", server.port());
    s.setSoTimeout(10_000);
    return s;
  }

  private static void send(Socket s, String path) throws IOException {
    s.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
    s.getOutputStream().flush();
  }

  /** Reads one response (head and a Content-Length body); its head, lower-cased. */
  private static String readResponse(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    while (!head.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
      int b = in.read();
      assertThat(b).as("response head").isNotNegative();
      head.write(b);
    }
    String h = head.toString(StandardCharsets.US_ASCII).toLowerCase();
    int at = h.indexOf("content-length:");
    int length = Integer.parseInt(h.substring(at + 15, h.indexOf('\r', at)).trim());
    assertThat(in.readNBytes(length)).hasSize(length);
    return h;
  }

  @Test
  void drain_closesIdleConnections_refusesNewOnes_letsTheRequestInFlightFinish() throws Exception {
    Socket idle = connect();
    send(idle, "/fast");
    assertThat(readResponse(idle.getInputStream())).startsWith("http/1.1 200").doesNotContain("connection: close");
    Socket busy = connect();
    send(busy, "/slow");
    HttpExchange inFlight = held.get(10, TimeUnit.SECONDS);
    int port = server.port();

    CompletableFuture<Integer> drained = CompletableFuture.supplyAsync(() -> server.drain(Duration.ofSeconds(30)));
    assertThat(idle.getInputStream().read()).as("the idle keep-alive connection is closed").isEqualTo(-1);
    // drain() closed the listener before it told the connections
    assertThatThrownBy(() -> new Socket("127.0.0.1", port).close()).isInstanceOf(ConnectException.class);
    assertThat(drained).as("waits for the request in flight").isNotDone();

    inFlight.sendJson(HttpResponseStatus.OK, Map.of("slow", true));
    // Whether the answer also says "Connection: close" depends on whether the drain has reached this connection's
    // event loop before the answer started (the idle one's loop may be served first); either way it is the last.
    assertThat(readResponse(busy.getInputStream())).startsWith("http/1.1 200");
    assertThat(busy.getInputStream().read()).as("closed after its last answer").isEqualTo(-1);
    assertThat(drained.get(10, TimeUnit.SECONDS)).as("connections left open").isZero();
    idle.close();
    busy.close();
  }

  @Test
  void drain_givesUpAfterTheGrace_reportingWhatIsStillOpen() throws Exception {
    Socket busy = connect();
    send(busy, "/slow");
    held.get(10, TimeUnit.SECONDS);
    assertThat(server.drain(Duration.ofMillis(200))).isEqualTo(1);
    busy.close();
  }
}
