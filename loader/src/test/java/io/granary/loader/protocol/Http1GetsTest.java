package io.granary.loader.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The loader's GET client against a real HTTP server (the JDK's) and, for what servers must not send, raw sockets. */
class Http1GetsTest {
  private static final byte[] BIG = new byte[3 * Http1Connection.BUFFER_BYTES + 12_345];

  static {
    new Random(7).nextBytes(BIG);
  }

  private HttpServer server;
  private URI base;
  private final Set<Integer> clientPorts = ConcurrentHashMap.newKeySet();
  private final Http1Gets gets = new Http1Gets(Duration.ofSeconds(5), Duration.ofSeconds(10));
  private final ExecutorService raw = Executors.newCachedThreadPool();

  @BeforeEach
  void start() throws Exception {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/big", ex -> {
      clientPorts.add(ex.getRemoteAddress().getPort());
      ex.getResponseHeaders().add("ETag", "\"abc\"");
      String range = ex.getRequestHeaders().getFirst("Range");
      int from = range == null ? 0 : Integer.parseInt(range.substring(6, range.indexOf('-')));
      ex.sendResponseHeaders(range == null ? 200 : 206, BIG.length - from);
      try (OutputStream out = ex.getResponseBody()) {
        out.write(BIG, from, BIG.length - from);
      }
    });
    server.createContext("/chunked", ex -> {
      ex.sendResponseHeaders(200, 0); // length 0: chunked
      try (OutputStream out = ex.getResponseBody()) {
        for (int off = 0; off < BIG.length; off += 10_000) {
          out.write(BIG, off, Math.min(10_000, BIG.length - off));
          out.flush();
        }
      }
    });
    server.createContext("/moved", ex -> {
      ex.getResponseHeaders().add("Location", "/big");
      ex.sendResponseHeaders(307, -1);
      ex.close();
    });
    server.start();
    base = URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  @AfterEach
  void stop() {
    gets.close();
    server.stop(0);
    raw.shutdownNow();
  }

  private static byte[] readAll(Http1Gets.Response r) throws IOException {
    try (InputStream in = r.body()) {
      return in.readAllBytes();
    }
  }

  @Test
  void contentLengthBody_byteExact_andTheConnectionIsReused() throws Exception {
    for (int i = 0; i < 5; i++) {
      Http1Gets.Response r = gets.get(base.resolve("/big"), null);
      assertThat(r.head().status()).isEqualTo(200);
      assertThat(r.head().etag()).isEqualTo("abc");
      assertThat(readAll(r)).isEqualTo(BIG);
    }
    assertThat(clientPorts).as("one keep-alive connection for the five GETs").hasSize(1);
  }

  @Test
  void skippedBody_countsEveryByte_andKeepsTheConnection() throws Exception {
    for (int i = 0; i < 3; i++) {
      try (InputStream in = gets.get(base.resolve("/big"), null).body()) {
        assertThat(ObjectClient.discard(in, new byte[1024])).isEqualTo(BIG.length);
      }
    }
    assertThat(clientPorts).hasSize(1);
  }

  @Test
  void chunkedBody_byteExact() throws Exception {
    assertThat(readAll(gets.get(base.resolve("/chunked"), null))).isEqualTo(BIG);
    try (InputStream in = gets.get(base.resolve("/chunked"), null).body()) {
      assertThat(ObjectClient.discard(in, new byte[1024])).isEqualTo(BIG.length);
    }
  }

  @Test
  void redirect_followed_withTheRange() throws Exception {
    Http1Gets.Response r = gets.get(base.resolve("/moved"), "bytes=1000-");
    assertThat(r.head().status()).isEqualTo(206);
    byte[] body = readAll(r);
    assertThat(body).hasSize(BIG.length - 1000);
    assertThat(body[0]).isEqualTo(BIG[1000]);
  }

  @Test
  void bodyClosedEarly_closesItsConnection_andTheNextGetUsesAFreshOne() throws Exception {
    try (InputStream in = gets.get(base.resolve("/big"), null).body()) {
      assertThat(in.read()).isEqualTo(BIG[0] & 0xFF);
    }
    assertThat(readAll(gets.get(base.resolve("/big"), null))).isEqualTo(BIG);
    assertThat(clientPorts).hasSize(2);
  }

  /** A server that answers each connection's first request with {@code answer} and then closes it. */
  private URI rawServer(String answer, int connections) throws IOException {
    return rawServer(answer, connections, new CountDownLatch(0));
  }

  /** As above; each connection stays open after the answer until {@code hold} opens. */
  private URI rawServer(String answer, int connections, CountDownLatch hold) throws IOException {
    ServerSocket ss = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    raw.submit(() -> {
      try (ss) {
        for (int i = 0; i < connections; i++) {
          try (Socket s = ss.accept()) {
            InputStream in = s.getInputStream();
            byte[] head = new byte[4096];
            int n = 0;
            while (n < 4 || !new String(head, 0, n, StandardCharsets.ISO_8859_1).contains("\r\n\r\n")) {
              n += in.read(head, n, head.length - n);
            }
            s.getOutputStream().write(answer.getBytes(StandardCharsets.ISO_8859_1));
            s.getOutputStream().flush();
            hold.await();
          }
        }
      }
      return null;
    });
    return URI.create("http://127.0.0.1:" + ss.getLocalPort() + "/x");
  }

  @Test
  void truncatedBody_isAnError_neverAShortSuccess() throws Exception {
    URI u = rawServer("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n" + "x".repeat(50), 1);
    try (InputStream in = gets.get(u, null).body()) {
      assertThatThrownBy(in::readAllBytes).isInstanceOf(EOFException.class).hasMessageContaining("50 bytes");
    }
  }

  @Test
  void truncatedChunkedBody_isAnError() throws Exception {
    URI u = rawServer("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n0123456789", 1);
    try (InputStream in = gets.get(u, null).body()) {
      assertThatThrownBy(() -> ObjectClient.discard(in, new byte[64])).isInstanceOf(EOFException.class);
    }
  }

  @Test
  void malformedAnswers_areClearErrors() throws Exception {
    assertThatThrownBy(() -> gets.get(rawServer("SSH-2.0-OpenSSH\r\n\r\n", 1), null))
        .isInstanceOf(IOException.class).hasMessageContaining("not an HTTP/1.x response");
    assertThatThrownBy(() -> gets.get(rawServer("HTTP/1.1 200 OK\r\nContent-Length: ten\r\n\r\n", 1), null))
        .isInstanceOf(IOException.class).hasMessageContaining("bad Content-Length");
    URI badChunk = rawServer("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 1);
    assertThatThrownBy(() -> gets.get(badChunk, null)).isInstanceOf(IOException.class)
        .hasMessageContaining("bad chunk size");
  }

  @Test
  void bodyFramedByTheConnectionsEnd_readToIt() throws Exception {
    URI u = rawServer("HTTP/1.0 200 OK\r\n\r\nhello", 1);
    assertThat(new String(readAll(gets.get(u, null)), StandardCharsets.ISO_8859_1)).isEqualTo("hello");
  }

  @Test
  void idleConnectionClosedByTheServer_theGetIsSentAgainOnAFreshOne() throws Exception {
    // Each connection answers one request with keep-alive framing, then the server closes it: the second GET finds
    // its kept connection closed and must not fail for it.
    URI u = rawServer("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", 2);
    assertThat(readAll(gets.get(u, null))).containsExactly('o', 'k');
    assertThat(readAll(gets.get(u, null))).containsExactly('o', 'k');
  }

  @Test
  void stalledBody_endsWithATimeout() throws Exception {
    CountDownLatch hold = new CountDownLatch(1);
    try (Http1Gets quick = new Http1Gets(Duration.ofSeconds(5), Duration.ofMillis(300))) {
      URI u = rawServer("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n" + "x".repeat(10), 1, hold);
      try (InputStream in = quick.get(u, null).body()) {
        assertThatThrownBy(in::readAllBytes).isInstanceOf(SocketTimeoutException.class);
      }
    } finally {
      hold.countDown();
    }
  }

  @Test
  void nothingListening_isAConnectError() {
    assertThatThrownBy(() -> gets.get(URI.create("http://127.0.0.1:1/x"), null))
        .isInstanceOf(java.net.ConnectException.class);
  }
}
