package io.granary.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * FaultProxy framing and fault semantics against a small JDK HttpServer upstream that answers with chunked bodies,
 * echoes request bodies, and has 204/304 routes.
 */
class FaultProxyTest {
  static final byte[] DATA = GcsClients.random(200_000, 31);

  HttpServer upstream;
  FaultProxy proxy;
  HttpClient client;
  final Set<Integer> upstreamClientPorts = ConcurrentHashMap.newKeySet();

  @BeforeEach
  void start() throws IOException {
    upstream = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    upstream.setExecutor(Executors.newFixedThreadPool(4));
    upstream.createContext("/", ex -> {
      upstreamClientPorts.add(ex.getRemoteAddress().getPort());
      byte[] in = ex.getRequestBody().readAllBytes();
      switch (ex.getRequestURI().getPath()) {
        case "/chunked" -> {
          ex.sendResponseHeaders(200, 0); // 0: chunked
          try (OutputStream out = ex.getResponseBody()) {
            for (int off = 0; off < DATA.length; off += 7000) {
              out.write(DATA, off, Math.min(7000, DATA.length - off));
              out.flush();
            }
          }
        }
        case "/echo" -> {
          ex.sendResponseHeaders(200, in.length);
          ex.getResponseBody().write(in);
        }
        case "/204" -> ex.sendResponseHeaders(204, -1);
        case "/head" -> ex.sendResponseHeaders(200, -1);
        case "/304" -> ex.sendResponseHeaders(304, -1);
        default -> {
          ex.sendResponseHeaders(200, DATA.length);
          ex.getResponseBody().write(DATA);
        }
      }
      ex.close();
    });
    upstream.start();
    proxy = FaultProxy.start(URI.create("http://127.0.0.1:" + upstream.getAddress().getPort()));
    client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(2))
        .build();
  }

  @AfterEach
  void stop() {
    proxy.close();
    upstream.stop(0);
    ((java.util.concurrent.ExecutorService) upstream.getExecutor()).shutdownNow();
  }

  HttpResponse<byte[]> send(String method, String path, byte[] body) throws Exception {
    HttpRequest.BodyPublisher pub = body == null ? HttpRequest.BodyPublishers.noBody()
        // ofInputStream has no length, so the JDK client sends it chunked.
        : HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body));
    return client.send(HttpRequest.newBuilder(proxy.endpoint().resolve(path)).method(method, pub)
        .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  @Test
  void chunkedBodiesBothWays_noBodyStatuses_andKeepAlive() throws Exception {
    assertThat(send("GET", "/chunked", null).body()).isEqualTo(DATA);
    assertThat(send("POST", "/echo?x=1", DATA).body()).isEqualTo(DATA);
    assertThat(send("GET", "/204", null).statusCode()).isEqualTo(204);
    assertThat(send("GET", "/304", null).statusCode()).isEqualTo(304);
    // HEAD with a Content-Length but no body is covered against S3Proxy in FaultProxyS3Test.
    assertThat(send("HEAD", "/head", null).statusCode()).isEqualTo(200);
    assertThat(send("GET", "/fixed", null).body()).isEqualTo(DATA);

    assertThat(upstreamClientPorts).hasSize(1); // one kept-alive upstream connection for all six
    assertThat(proxy.requests()).extracting(FaultProxy.Recorded::pathAndQuery)
        .containsExactly("/chunked", "/echo?x=1", "/204", "/304", "/head", "/fixed");
  }

  @Test
  void corruptAndTruncate_countPayloadBytesOfChunkedBodies() throws Exception {
    proxy.inject(r -> r.pathAndQuery().equals("/chunked"), new FaultProxy.Fault.Corrupt(150_000), 1);
    byte[] got = send("GET", "/chunked", null).body();
    assertThat(got[150_000]).isEqualTo((byte) ~DATA[150_000]);

    proxy.inject(r -> r.pathAndQuery().equals("/chunked"), new FaultProxy.Fault.Truncate(10_000), 1);
    assertThatThrownBy(() -> send("GET", "/chunked", null)).isInstanceOf(IOException.class);
    proxy.inject(r -> r.pathAndQuery().equals("/fixed"), new FaultProxy.Fault.Truncate(10_000), 1);
    assertThatThrownBy(() -> send("GET", "/fixed", null)).isInstanceOf(IOException.class);
    assertThat(send("GET", "/chunked", null).body()).isEqualTo(DATA);
  }

  @Test
  void replaceHeader_setsOrAddsTheAnswersHeader_andLeavesTheBodyAlone() throws Exception {
    proxy.inject(r -> r.pathAndQuery().equals("/fixed"), new FaultProxy.Fault.ReplaceHeader("content-type", "x/y"), 1);
    HttpResponse<byte[]> replaced = send("GET", "/fixed", null);
    assertThat(replaced.headers().allValues("Content-Type")).containsExactly("x/y");
    assertThat(replaced.body()).isEqualTo(DATA);
    proxy.inject(r -> r.pathAndQuery().equals("/fixed"), new FaultProxy.Fault.ReplaceHeader("X-Claim", "abc"), 1);
    HttpResponse<byte[]> added = send("GET", "/fixed", null);
    assertThat(added.headers().firstValue("x-claim")).contains("abc");
    assertThat(added.body()).isEqualTo(DATA);
    assertThat(send("GET", "/fixed", null).headers().firstValue("x-claim")).as("once only").isEmpty();
  }

  @Test
  void statusFault_timesAndForever_andXmlOrJsonBody() throws Exception {
    proxy.inject(r -> r.pathAndQuery().startsWith("/fixed"), new FaultProxy.Fault.Status(503), 2);
    HttpResponse<byte[]> first = send("GET", "/fixed", null);
    assertThat(first.statusCode()).isEqualTo(503);
    assertThat(new String(first.body())).contains("<Code>ServiceUnavailable</Code>");
    assertThat(send("HEAD", "/fixed", null).statusCode()).isEqualTo(503);
    assertThat(send("GET", "/fixed", null).statusCode()).isEqualTo(200);

    proxy.inject(r -> r.pathAndQuery().startsWith("/storage/"), new FaultProxy.Fault.Status(500), -1);
    for (int i = 0; i < 3; i++) {
      HttpResponse<byte[]> r = send("POST", "/storage/v1/b/x", DATA); // body drained, connection kept
      assertThat(r.statusCode()).isEqualTo(500);
      assertThat(new String(r.body())).contains("\"code\":500");
    }
    proxy.clearFaults();
    assertThat(send("GET", "/storage/v1/b/x", null).statusCode()).isEqualTo(200);

    assertThat(proxy.count(r -> r.pathAndQuery().startsWith("/storage/"))).isEqualTo(4);
    proxy.resetCounts();
    assertThat(proxy.requests()).isEmpty();
  }

  @Test
  void close_endsStalledConnectionsWithinSeconds() throws Exception {
    proxy.inject(r -> true, new FaultProxy.Fault.Stall(Duration.ofSeconds(30), 0), -1);
    CompletableFuture<HttpResponse<byte[]>> stalled = CompletableFuture.supplyAsync(() -> {
      try {
        return send("GET", "/fixed", null);
      } catch (Exception e) {
        throw new java.util.concurrent.CompletionException(e);
      }
    });
    Thread.sleep(300);
    long t0 = System.nanoTime();
    proxy.close();
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(3));
    assertThatThrownBy(() -> stalled.get(3, java.util.concurrent.TimeUnit.SECONDS)).hasCauseInstanceOf(IOException.class);
    assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().startsWith("fault-proxy-"
        + proxy.endpoint().getPort()) && t.isAlive());
  }
}
