package io.granary.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.granary.loader.report.OpSummary;
import io.granary.loader.report.RunResult;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The whole run loop against a JDK HTTP server standing in for nginx: GETs of listed names, MD5 ETags verified. */
class HttpProtocolTest {
  private HttpServer server;
  private URI base;

  @BeforeEach
  void start() throws Exception {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/data/", ex -> {
      String name = ex.getRequestURI().getPath().substring("/data/".length());
      if (name.startsWith("missing")) {
        ex.sendResponseHeaders(404, -1);
        ex.close();
        return;
      }
      byte[] body = name.getBytes(StandardCharsets.UTF_8);
      try {
        ex.getResponseHeaders().add("ETag", "\"" + HexFormat.of().formatHex(MessageDigest.getInstance("MD5")
            .digest(name.startsWith("bad") ? new byte[1] : body)) + "\"");
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
      ex.sendResponseHeaders(200, "HEAD".equals(ex.getRequestMethod()) ? -1 : body.length);
      try (OutputStream out = ex.getResponseBody()) {
        if (!"HEAD".equals(ex.getRequestMethod())) {
          out.write(body);
        }
      }
    });
    server.start();
    base = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/data");
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private RunResult run(Path names, ByteArrayOutputStream err) throws Exception {
    LoadOptions o = new LoadOptions(List.of(base), null, Protocol.HTTP, Duration.ofMillis(700), 2, 0, 0, 0, 0, names,
        true, null, 0, 1, 1, Duration.ZERO, false, null, null);
    return new LoadRunner(o, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8)).run();
  }

  @Test
  void httpGets_verifiedAgainstMd5Etag(@TempDir Path dir) throws Exception {
    Path names = Files.writeString(dir.resolve("names"), "a/one\nb two\nc/ünï\n");
    RunResult r = run(names, new ByteArrayOutputStream());
    OpSummary get = r.ops().get("get");
    assertThat(get.count()).isPositive();
    assertThat(get.errors()).isZero();
    assertThat(get.verified()).isEqualTo(get.count());
    assertThat(r.ops()).doesNotContainKey("put");
  }

  @Test
  void httpGets_etagMismatch_countsErrors(@TempDir Path dir) throws Exception {
    Path names = Files.writeString(dir.resolve("names"), "bad-1\n");
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    RunResult r = run(names, err);
    assertThat(r.ops().get("get").errors()).isPositive();
    assertThat(r.ops().get("get").count()).isZero();
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("MD5 of the body differs");
  }

  @Test
  void probe_missingFirstName_isOneLine(@TempDir Path dir) throws Exception {
    Path names = Files.writeString(dir.resolve("names"), "missing-1\n");
    assertThatThrownBy(() -> run(names, new ByteArrayOutputStream())).isInstanceOf(LoaderException.class)
        .hasMessageContaining("answered 404");
  }
}
