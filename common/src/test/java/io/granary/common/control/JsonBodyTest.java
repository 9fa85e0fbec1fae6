package io.granary.common.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.granary.clustermap.ClusterJson;
import io.granary.common.auth.ClusterSigner;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A body serialized once and sent as it is, over a real signing ControlClient to a loopback server. */
class JsonBodyTest {
  private static final ClusterSigner SIGNER = ClusterSigner.of("json-body-test-secret-0123");

  /** What the server was sent. */
  record Received(String contentType, boolean signed, byte[] body) {
  }

  private final List<Received> received = Collections.synchronizedList(new ArrayList<>());
  private HttpServer server;
  private String url;

  @BeforeEach
  void setUp() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/v1/metasync", ex -> {
      byte[] body;
      try (InputStream in = ex.getRequestBody()) {
        body = in.readAllBytes();
      }
      HttpHeaders h = new DefaultHttpHeaders();
      ex.getRequestHeaders().forEach((k, v) -> h.add(k, v));
      received.add(new Received(ex.getRequestHeaders().getFirst("Content-Type"),
          SIGNER.verifyHeaders(ex.getRequestMethod(), ex.getRequestURI().toString(), h), body));
      ex.sendResponseHeaders(200, -1);
      ex.close();
    });
    server.start();
    url = "http://127.0.0.1:" + server.getAddress().getPort() + "/v1/metasync";
  }

  @AfterEach
  void tearDown() {
    server.stop(0);
  }

  @Test
  void of_writesTheClusterJsonForm() throws Exception {
    Map<String, Object> value = Map.of("created", Instant.parse("2026-03-01T12:00:00Z"), "version", 7);

    assertThat(JsonBody.of(value).bytes()).isEqualTo(ClusterJson.mapper().writeValueAsBytes(value));
    assertThat(JsonBody.of(value).length()).isEqualTo(ClusterJson.mapper().writeValueAsBytes(value).length);
  }

  @Test
  void of_aJsonBody_isThatBody() {
    JsonBody body = JsonBody.of(Map.of("a", 1));

    assertThat(JsonBody.of(body)).isSameAs(body);
  }

  @Test
  void of_unserializable_failsUnchecked() {
    assertThatThrownBy(() -> JsonBody.of(new Object())).isInstanceOf(UncheckedIOException.class);
  }

  @Test
  void send_oneBodyToManyCalls_sendsTheSameSignedBytes() throws Exception {
    ControlClient client = new ControlClient(Duration.ofSeconds(10), null, SIGNER);
    JsonBody body = JsonBody.of(Map.of("map", Map.of("version", 3)));

    client.sendSerialized("PUT", url, body, Void.class).get();
    client.sendSerialized("PUT", url, body, Void.class).get();

    assertThat(received).hasSize(2).allSatisfy(r -> {
      assertThat(r.body()).isEqualTo(body.bytes());
      assertThat(r.contentType()).isEqualTo("application/json");
      assertThat(r.signed()).isTrue();
    });
  }

  @Test
  void send_aJsonBodyAsAnObject_sendsItsBytesNotTheBodyObject() throws Exception {
    ControlClient client = new ControlClient(Duration.ofSeconds(10), null, SIGNER);
    Object body = JsonBody.of(Map.of("version", 3));

    client.send("PUT", url, body, Void.class).get();

    assertThat(received).singleElement().satisfies(r -> assertThat(r.body()).isEqualTo("{\"version\":3}".getBytes()));
  }

  @Test
  void send_aLiteralNullBody_sendsAnEmptyBody() throws Exception {
    // Most control calls send no body, written as a literal null: it must reach send(..., Object, ...), which had
    // lost to a more specific overload taking a JsonBody (every bodyless call failed with a NullPointerException).
    ControlClient client = new ControlClient(Duration.ofSeconds(10), null, SIGNER);

    client.send("POST", url, null, Void.class).get();

    assertThat(received).singleElement().satisfies(r -> {
      assertThat(r.body()).isEmpty();
      assertThat(r.signed()).isTrue();
    });
  }
}
