package io.granary.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.it.support.Content;
import io.granary.it.support.Descriptors;
import io.granary.it.support.Http;
import io.granary.it.support.Resources;
import io.granary.it.support.SigV4;
import io.granary.it.support.TestCluster;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The edge limits of real nodes (issue 18 item 9, third point), over raw sockets, with a 2 s head and body timeout
 * and a cap of 16 connections on the proxy and the target: a head sent a byte at a time gets 408 and is closed; a
 * connection that sends nothing is closed; an upload that stalls, or trickles under the minimum body rate, is
 * aborted, leaving no work file and giving back its space; connections beyond the cap are refused while the ones held and the cluster's own traffic are served.
 * After every test the one object is what it was and the nodes' descriptors return to their baseline.
 */
class EdgeLimitsIT {
  private static final String BUCKET = "limits";
  private static final String KEEP = "keep";
  private static final byte[] KEEP_DATA = Content.bytes(21, 50_000);
  private static final int MAX_CONNECTIONS = 16;
  private static final int RESERVE = 32; // HttpLimits.reserve() for a cap of 16
  /** Bounds every wait for an answer or a close; a server that keeps a connection it should drop fails the test. */
  private static final int READ_TIMEOUT_MILLIS = 15_000;
  private static final List<String> LIMITS = List.of("--head-timeout", "2s", "--body-timeout", "2s",
      "--max-connections", String.valueOf(MAX_CONNECTIONS));
  private static TestCluster cluster;
  private static String target;

  @BeforeAll
  static void start() throws Exception {
    List<String> proxyArgs = new ArrayList<>(List.of("--health-interval", "1s", "--offline-after", "4s"));
    proxyArgs.addAll(LIMITS);
    List<String> targetArgs = new ArrayList<>(LIMITS);
    // 8 MiB per mountpath (full at 95%): a stalled 5 MiB upload that kept its reservation would make the next one 507.
    targetArgs.addAll(List.of("--capacity", "8MiB", "--reserve", "0"));
    cluster = TestCluster.start("edgelimits", 1, List.of(), proxyArgs, false, targetArgs);
    target = cluster.targetIds().get(0);
    assertThat(cluster.createBucket(BUCKET).status()).isEqualTo(201);
    assertThat(Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(objectUrl(KEEP)))
        .PUT(HttpRequest.BodyPublishers.ofByteArray(KEEP_DATA))).status()).isEqualTo(200);
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(cluster);
  }

  @AfterEach
  void nothingChanged() throws Exception {
    Awaitility.await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
        assertThat(Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(objectUrl(KEEP))).GET()).body())
            .isEqualTo(KEEP_DATA));
    Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(workFiles()).isEmpty());
  }

  /** A node's listener. */
  enum Node {
    PROXY, TARGET;

    String base() {
      return this == PROXY ? cluster.endpoint() : cluster.targetUrl(target);
    }

    long pid() {
      return cluster.local().process(this == PROXY ? "p1" : target).pid();
    }

    String host() {
      URI u = URI.create(base());
      return u.getHost() + ":" + u.getPort();
    }
  }

  // ---------------------------------------------------------------- head timeout

  /** Slowloris: the head comes a byte every 100 ms, so the connection is never idle; it is cut off all the same. */
  @Test
  void headSentAByteAtATime_gets408_andTheConnectionIsClosed_onProxyAndTarget() throws Exception {
    long[] baseline = descriptors();
    String head = "GET /v1/health HTTP/1.1\r\nHost: x\r\nUser-Agent: " + "s".repeat(600) + "\r\n\r\n";
    ScheduledExecutorService trickler = Executors.newSingleThreadScheduledExecutor();
    try {
      for (Node node : Node.values()) {
        try (Conn c = new Conn(node)) {
          AtomicInteger sent = new AtomicInteger();
          trickler.scheduleAtFixedRate(() -> {
            int i = sent.get();
            if (i < head.length() && c.trySend(head.substring(i, i + 1))) {
              sent.incrementAndGet();
            } else {
              throw new IllegalStateException("stop"); // ends this schedule
            }
          }, 0, 100, TimeUnit.MILLISECONDS);
          Read r = c.readUntilClosed();
          assertThat(r.text()).as("%s: %s", node, r.text()).startsWith("HTTP/1.1 408 ");
          assertThat(r.text()).contains("RequestTimeout");
          assertThat(r.text().toLowerCase(Locale.ROOT)).contains("connection: close");
          assertThat(r.closed()).as("%s closed the connection", node).isTrue();
          assertThat(sent.get()).as("the head was cut off before it was complete").isLessThan(head.length());
        }
      }
    } finally {
      trickler.shutdownNow();
    }
    assertThat(metric(Node.PROXY, "granary_http_request_timeouts_total{", "phase=\"head\"")).isPositive();
    assertThat(metric(Node.TARGET, "granary_http_request_timeouts_total{", "phase=\"head\"")).isPositive();
    awaitDescriptors(baseline);
  }

  /** Connections that never send a byte are not held until the idle timeout (5 min): the head timeout closes them. */
  @Test
  void connectionsSendingNothing_areClosedUnanswered() throws Exception {
    long[] baseline = descriptors();
    List<Conn> silent = new ArrayList<>();
    try {
      for (Node node : Node.values()) {
        for (int i = 0; i < 10; i++) {
          silent.add(new Conn(node));
        }
      }
      for (Conn c : silent) {
        Read r = c.readUntilClosed();
        assertThat(r.closed()).as("closed by the node").isTrue();
        assertThat(r.text()).as("nothing was asked, nothing answered").isEmpty();
      }
    } finally {
      Resources.closeAll(silent.toArray(AutoCloseable[]::new));
    }
    awaitDescriptors(baseline);
  }

  // ---------------------------------------------------------------- body timeout

  /**
   * A 5 MiB upload straight to the target that stalls after 64 KiB: 408, closed, its work file gone and its space
   * reservation given back, so the same 5 MiB upload then fits (it would not beside a kept reservation).
   */
  @Test
  void stalledUploadToTheTarget_isAborted_leavesNoWorkFile_andGivesBackItsSpace() throws Exception {
    long[] baseline = descriptors();
    long usedBefore = usedBytes();
    int size = 5 << 20;
    String uri = "/v1/objects/" + BUCKET + "/big?provider=ais";
    try (Conn c = new Conn(Node.TARGET)) {
      c.send("PUT " + uri + " HTTP/1.1\r\nHost: " + Node.TARGET.host() + cluster.signatureLines("PUT", uri)
          + "\r\nContent-Length: " + size + "\r\n\r\n");
      c.send(new String(Content.bytes(22, 64 * 1024), StandardCharsets.ISO_8859_1));
      Read r = c.readUntilClosed();
      assertThat(r.text()).as(r.text()).startsWith("HTTP/1.1 408 ");
      assertThat(r.text()).contains("no request body bytes for too long after 65536 bytes");
      assertThat(r.closed()).isTrue();
    }
    Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
      assertThat(workFiles()).isEmpty();
      assertThat(usedBytes()).as("used and reserved bytes of the target's mountpaths").isEqualTo(usedBefore);
    });
    assertThat(Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(objectUrl("big"))).GET()).status())
        .as("nothing was stored").isEqualTo(404);
    byte[] data = Content.bytes(23, size);
    Http.Reply put = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(objectUrl("big")))
        .PUT(HttpRequest.BodyPublishers.ofByteArray(data)));
    assertThat(put.status()).as(put.bodyText()).isEqualTo(200);
    assertThat(Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(objectUrl("big"))).DELETE()).status())
        .isEqualTo(204);
    assertThat(metric(Node.TARGET, "granary_http_request_timeouts_total{", "phase=\"body\"")).isPositive();
    awaitDescriptors(baseline);
  }

  /**
   * Slowloris on the body: an upload that brings a byte every 100 ms never stalls, and is aborted all the same at the
   * end of its first 2 s window (10 B/s is far under the default 500 B/s minimum), leaving no work file.
   */
  @Test
  void uploadTrickledUnderTheMinimumRate_isAborted_andLeavesNothing() throws Exception {
    long[] baseline = descriptors();
    long usedBefore = usedBytes();
    int size = 1 << 20;
    String uri = "/v1/objects/" + BUCKET + "/trickled?provider=ais";
    ScheduledExecutorService trickler = Executors.newSingleThreadScheduledExecutor();
    try (Conn c = new Conn(Node.TARGET)) {
      c.send("PUT " + uri + " HTTP/1.1\r\nHost: " + Node.TARGET.host() + cluster.signatureLines("PUT", uri)
          + "\r\nContent-Length: " + size + "\r\n\r\n");
      AtomicInteger sent = new AtomicInteger();
      trickler.scheduleAtFixedRate(() -> {
        if (sent.get() < size && c.trySend("z")) {
          sent.incrementAndGet();
        } else {
          throw new IllegalStateException("stop"); // ends this schedule
        }
      }, 0, 100, TimeUnit.MILLISECONDS);
      Read r = c.readUntilClosed();
      assertThat(r.text()).as(r.text()).startsWith("HTTP/1.1 408 ");
      assertThat(r.text()).contains("under the minimum rate of 500 B/s");
      assertThat(r.closed()).isTrue();
    } finally {
      trickler.shutdownNow();
    }
    Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
      assertThat(workFiles()).isEmpty();
      assertThat(usedBytes()).as("used and reserved bytes of the target's mountpaths").isEqualTo(usedBefore);
    });
    assertThat(Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(objectUrl("trickled"))).GET()).status())
        .as("nothing was stored").isEqualTo(404);
    awaitDescriptors(baseline);
  }

  /**
   * An S3 PUT over the existing object, streamed through the proxy to the target, that stalls: S3's 400
   * RequestTimeout, closed; the
   * relay drops its connection to the target, so the target's upload ends too; the object is unchanged.
   */
  @Test
  void stalledS3UploadThroughTheProxy_isAborted_andTheObjectIsUnchanged() throws Exception {
    long[] baseline = descriptors();
    long usedBefore = usedBytes();
    byte[] body = Content.bytes(24, 1 << 20);
    String path = "/" + BUCKET + "/" + KEEP;
    StringBuilder head = new StringBuilder("PUT " + path + " HTTP/1.1\r\nHost: " + Node.PROXY.host());
    SigV4.sign(HttpRequest.newBuilder(URI.create(cluster.endpoint() + path)), "PUT", cluster.endpoint() + path, body,
            cluster.credentials().accessKey(), cluster.credentials().secretKey())
        .uri(URI.create(cluster.endpoint() + path)).build().headers().map()
        .forEach((name, values) -> values.forEach(v -> head.append("\r\n").append(name).append(": ").append(v)));
    try (Conn c = new Conn(Node.PROXY)) {
      c.send(head + "\r\nContent-Length: " + body.length + "\r\n\r\n");
      c.send(new String(body, 0, 10_000, StandardCharsets.ISO_8859_1));
      Read r = c.readUntilClosed();
      // As S3 answers it: 400 with the code RequestTimeout (the native API's is 408).
      assertThat(r.text()).as(r.text()).startsWith("HTTP/1.1 400 ");
      assertThat(r.text()).contains("<Code>RequestTimeout</Code>", "nothing was stored");
      assertThat(r.closed()).isTrue();
    }
    Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
      assertThat(workFiles()).isEmpty();
      assertThat(usedBytes()).isEqualTo(usedBefore);
    });
    awaitDescriptors(baseline);
  }

  // ---------------------------------------------------------------- connection cap

  /**
   * Connections to the target are opened (each asks for /v1/health and stays open) until one is refused: 503
   * TooManyConnections with Retry-After, and closed. The ones held are still served, and so is the cluster's own
   * traffic (a request signed by the cluster on a new connection, an S3 GET the proxy streams from the target).
   * Once the reserve is full too, a new connection is closed without a word. Closing them all, the node serves new
   * clients again and its descriptors return to the baseline.
   */
  @Test
  void connectionsBeyondTheCap_areRefused_whileTheHeldOnesAndTheClusterAreServed() throws Exception {
    long[] baseline = descriptors();
    List<Conn> held = new ArrayList<>();
    try {
      Refusal refused = fillUpTo(Node.TARGET, held);
      assertThat(held.size()).as("served before the cap was reached").isBetween(1, MAX_CONNECTIONS);
      assertThat(refused.answer().body()).contains("TooManyConnections");

      for (Conn c : held) {
        assertThat(c.request("GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n").status()).as("held connection served")
            .isEqualTo(200);
      }
      // The cluster's traffic gets in on the reserve: signed by the cluster, directly and through the proxy.
      String uri = "/v1/objects/" + BUCKET + "/" + KEEP + "?provider=ais";
      Conn signed = new Conn(Node.TARGET);
      held.add(signed);
      Response own = signed.request("GET " + uri + " HTTP/1.1\r\nHost: " + Node.TARGET.host()
          + cluster.signatureLines("GET", uri) + "\r\n\r\n");
      assertThat(own.status()).as(own.body()).isEqualTo(200);
      assertThat(own.body().getBytes(StandardCharsets.ISO_8859_1)).isEqualTo(KEEP_DATA);
      Http.Reply relayed = s3Get(KEEP);
      assertThat(relayed.status()).as(relayed.bodyText()).isEqualTo(200);
      assertThat(relayed.body()).isEqualTo(KEEP_DATA);

      // Fill the reserve with the cluster's connections: beyond it a connection is closed unanswered.
      Conn closedAtAccept = null;
      for (int i = 0; i <= RESERVE && closedAtAccept == null; i++) {
        Conn c = new Conn(Node.TARGET);
        held.add(c);
        String health = "GET /v1/health HTTP/1.1\r\nHost: x" + cluster.signatureLines("GET", "/v1/health") + "\r\n\r\n";
        if (!c.trySend(health)) {
          closedAtAccept = c;
          continue;
        }
        Read r = c.readResponseOrClose();
        if (r.closed() && r.text().isEmpty()) {
          closedAtAccept = c;
        } else {
          assertThat(r.text()).as("a cluster request on the reserve").startsWith("HTTP/1.1 200 ");
        }
      }
      assertThat(closedAtAccept).as("a connection beyond cap and reserve was closed unanswered").isNotNull();
    } finally {
      Resources.closeAll(held.toArray(AutoCloseable[]::new));
    }
    awaitDescriptors(baseline);
    Awaitility.await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
      try (Conn c = new Conn(Node.TARGET)) {
        assertThat(c.request("GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n").status()).isEqualTo(200);
      }
    });
    assertThat(metric(Node.TARGET, "granary_http_connections_refused_total{", "how=\"answered\"")).isPositive();
    assertThat(metric(Node.TARGET, "granary_http_connections_refused_total{", "how=\"closed\"")).isPositive();
  }

  /** The proxy's S3 listener refuses beyond its cap the same way, and serves the connections it holds. */
  @Test
  void connectionsBeyondTheProxysCap_are503_andTheHeldOnesServed() throws Exception {
    long[] baseline = descriptors();
    List<Conn> held = new ArrayList<>();
    try {
      Refusal refused = fillUpTo(Node.PROXY, held);
      assertThat(refused.answer().body()).contains("TooManyConnections");
      for (Conn c : held) {
        assertThat(c.request("GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n").status()).isEqualTo(200);
      }
    } finally {
      Resources.closeAll(held.toArray(AutoCloseable[]::new));
    }
    awaitDescriptors(baseline);
  }

  /** A refused connection's answer. */
  record Refusal(Response answer) {
  }

  /**
   * Opens connections to {@code node}, each asking for /v1/health and kept in {@code held}, until one is answered
   * otherwise: that answer must be 503 with Retry-After and the connection must close after it. Other clients
   * (the cluster's, the test's HTTP client) may hold some of the places, so fewer than the cap may be held.
   */
  private static Refusal fillUpTo(Node node, List<Conn> held) throws IOException {
    for (int i = 0; i <= MAX_CONNECTIONS; i++) {
      Conn c = new Conn(node);
      Response r;
      try {
        r = c.request("GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n");
      } catch (IOException e) {
        c.close();
        throw e;
      }
      if (r.status() == 200) {
        held.add(c);
        continue;
      }
      try (c) {
        assertThat(r.status()).as(r.body()).isEqualTo(503);
        assertThat(r.headers()).containsEntry("retry-after", "1").containsEntry("connection", "close");
        assertThat(c.readUntilClosed().closed()).as("the refused connection is closed").isTrue();
      }
      return new Refusal(r);
    }
    throw new AssertionError(node + " served more than " + MAX_CONNECTIONS + " connections at once");
  }

  // ---------------------------------------------------------------- helpers

  private static String objectUrl(String key) {
    return cluster.endpoint() + "/v1/objects/" + BUCKET + "/" + key;
  }

  private static Http.Reply s3Get(String key) throws Exception {
    String url = cluster.endpoint() + "/" + BUCKET + "/" + key;
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30));
    SigV4.sign(b, "GET", url, new byte[0], cluster.credentials().accessKey(), cluster.credentials().secretKey());
    return Http.send(Http.NO_FOLLOW, b.GET());
  }

  /** The sum of a metric's series on {@code node} whose line contains {@code label}. */
  private static double metric(Node node, String prefix, String label) throws Exception {
    double sum = 0;
    for (String line : Http.get(node.base() + "/metrics").bodyText().split("\n")) {
      if (line.startsWith(prefix) && line.contains(label)) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return sum;
  }

  /** Used bytes of the target's mountpaths as its metrics report them (objects plus work files in progress). */
  private static long usedBytes() throws Exception {
    return (long) metric(Node.TARGET, "granary_mountpath_used_bytes{", "");
  }

  private static List<Path> workFiles() throws IOException {
    List<Path> all = new ArrayList<>();
    for (Path mp : cluster.mountpaths(target)) {
      Path work = mp.resolve("work");
      if (Files.isDirectory(work)) {
        try (Stream<Path> s = Files.list(work)) {
          all.addAll(s.toList());
        }
      }
    }
    return all;
  }

  private static long[] descriptors() {
    return nodes().now();
  }

  private static void awaitDescriptors(long[] baseline) {
    nodes().awaitBack(baseline);
  }

  private static Descriptors nodes() {
    return new Descriptors(Node.PROXY.pid(), Node.TARGET.pid());
  }

  /** What a read until the server closed brought: the bytes, and whether the close came (else the wait ran out). */
  record Read(String text, boolean closed) {
  }

  record Response(int status, Map<String, String> headers, String body) {
  }

  /** A raw client connection whose every read is bounded by {@link #READ_TIMEOUT_MILLIS}. */
  static final class Conn implements Closeable {
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    Conn(Node node) throws IOException {
      URI u = URI.create(node.base());
      socket = new Socket(u.getHost(), u.getPort());
      socket.setSoTimeout(READ_TIMEOUT_MILLIS);
      in = socket.getInputStream();
      out = socket.getOutputStream();
    }

    void send(String raw) throws IOException {
      out.write(raw.getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
    }

    /** Sends {@code raw}; false when the server has closed the connection. */
    boolean trySend(String raw) {
      try {
        send(raw);
        return true;
      } catch (IOException e) {
        return false;
      }
    }

    /** Sends one request and reads its answer, delimited by Content-Length. */
    Response request(String raw) throws IOException {
      send(raw);
      StringBuilder head = new StringBuilder();
      while (!head.toString().endsWith("\r\n\r\n")) {
        int c = in.read();
        if (c < 0) {
          throw new IOException("connection closed after '" + head + "'");
        }
        head.append((char) c);
      }
      String[] lines = head.toString().trim().split("\r\n");
      Map<String, String> headers = new TreeMap<>();
      for (int i = 1; i < lines.length; i++) {
        int c = lines[i].indexOf(':');
        headers.put(lines[i].substring(0, c).trim().toLowerCase(Locale.ROOT), lines[i].substring(c + 1).trim());
      }
      byte[] body = in.readNBytes(Integer.parseInt(headers.getOrDefault("content-length", "0")));
      return new Response(Integer.parseInt(lines[0].split(" ")[1]), headers,
          new String(body, StandardCharsets.ISO_8859_1));
    }

    /** Reads until the server closes (end of stream or reset) or the read timeout passes. */
    Read readUntilClosed() throws IOException {
      ByteArrayOutputStream got = new ByteArrayOutputStream();
      byte[] buf = new byte[8192];
      try {
        for (int n; (n = in.read(buf)) != -1; ) {
          got.write(buf, 0, n);
        }
        return new Read(got.toString(StandardCharsets.ISO_8859_1), true);
      } catch (java.net.SocketTimeoutException timeout) {
        return new Read(got.toString(StandardCharsets.ISO_8859_1), false);
      } catch (SocketException reset) { // closed with our bytes unread: a reset after whatever was answered
        return new Read(got.toString(StandardCharsets.ISO_8859_1), true);
      }
    }

    /** Reads one response head, or until the server closes; for a connection that may be refused at accept. */
    Read readResponseOrClose() throws IOException {
      ByteArrayOutputStream got = new ByteArrayOutputStream();
      try {
        for (int c; (c = in.read()) != -1; ) {
          got.write(c);
          if (got.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
            return new Read(got.toString(StandardCharsets.ISO_8859_1), false);
          }
        }
        return new Read(got.toString(StandardCharsets.ISO_8859_1), true);
      } catch (SocketException reset) {
        return new Read(got.toString(StandardCharsets.ISO_8859_1), true);
      }
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }
}
