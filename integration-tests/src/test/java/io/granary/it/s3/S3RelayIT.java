package io.granary.it.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.it.support.Content;
import io.granary.it.support.TestCluster;
import io.granary.it.support.Resources;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/**
 * The proxy's stream-through relay under the conditions that break relays: large bodies (spliced from target to
 * client in the kernel) alternating with small ones on one keep-alive connection, clients that hang up in the
 * middle of a body, and a target that dies in the middle of one. Requests go over raw sockets so the test sees
 * exactly what the proxy sends.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class S3RelayIT {
  private static final String BUCKET = "s3relay";
  private static final int LARGE = 3 * 1024 * 1024 + 12_345; // above the splice threshold, not a buffer multiple
  private static final int SMALL = 10_000;
  private static final int HUGE = 48 * 1024 * 1024;
  private static final Duration READ_TIMEOUT = Duration.ofSeconds(30);

  private static TestCluster cluster;
  private static S3Client s3;
  private static S3Presigner presigner;
  private static byte[] large;
  private static byte[] small;

  @BeforeAll
  static void start() throws Exception {
    cluster = TestCluster.start("s3relay", 1, List.of(), List.of());
    s3 = S3Support.sync(cluster);
    presigner = S3Support.presigner(cluster);
    s3.createBucket(b -> b.bucket(BUCKET));
    large = Content.bytes(301, LARGE);
    small = Content.bytes(302, SMALL);
    s3.putObject(b -> b.bucket(BUCKET).key("large.bin"), RequestBody.fromBytes(large));
    s3.putObject(b -> b.bucket(BUCKET).key("small.bin"), RequestBody.fromBytes(small));
    s3.putObject(b -> b.bucket(BUCKET).key("huge.bin"),
        RequestBody.fromContentProvider(() -> Content.stream(303, HUGE), HUGE, "application/octet-stream"));
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(presigner, s3, cluster);
  }

  @Test
  @Order(1)
  void largeAndSmallObjects_alternatingOnOneKeepAliveConnection_areByteExact() throws Exception {
    try (Connection c = connect()) {
      for (int i = 0; i < 12; i++) {
        Reply big = c.get(presignedPath("large.bin"), Map.of());
        assertThat(big.status()).isEqualTo(200);
        assertThat(Arrays.equals(big.body(), large)).as("large object, round %d", i).isTrue();
        Reply little = c.get(presignedPath("small.bin"), Map.of());
        assertThat(little.status()).isEqualTo(200);
        assertThat(Arrays.equals(little.body(), small)).as("small object after a large one, round %d", i).isTrue();
      }
      // A large range is spliced too; HEAD carries a large Content-Length and no body.
      Reply range = c.get(presignedPath("large.bin"), Map.of("Range", "bytes=1000-2500999"));
      assertThat(range.status()).isEqualTo(206);
      assertThat(Arrays.equals(range.body(), Arrays.copyOfRange(large, 1000, 2_501_000))).isTrue();
      Reply head = c.request("HEAD", presignedHeadPath("large.bin"), Map.of());
      assertThat(head.status()).isEqualTo(200);
      assertThat(head.headers().get("content-length")).isEqualTo(String.valueOf(LARGE));
      assertThat(head.body()).isEmpty();
      Reply again = c.get(presignedPath("small.bin"), Map.of());
      assertThat(Arrays.equals(again.body(), small)).isTrue();
    }
  }

  @Test
  @Order(2)
  void clientsThatHangUpMidBody_leaveTheProxyServingEveryoneElse() throws Exception {
    for (int i = 0; i < 40; i++) {
      try (Connection c = connect()) {
        c.send("GET", presignedPath("huge.bin"), Map.of());
        c.readHead();
        c.in.readNBytes(64 * 1024 + i * 1000); // then hang up with most of the body unsent
      }
    }
    try (Connection c = connect()) {
      Reply big = c.get(presignedPath("large.bin"), Map.of());
      assertThat(Arrays.equals(big.body(), large)).isTrue();
      Reply huge = c.get(presignedPath("huge.bin"), Map.of());
      assertThat(huge.body()).hasSize(HUGE);
      try (InputStream expected = Content.stream(303, HUGE)) {
        assertThat(Arrays.equals(huge.body(), expected.readAllBytes())).as("48 MiB body").isTrue();
      }
    }
  }

  @Test
  @Order(3)
  void aTargetDyingMidBody_cutsTheResponseShort_neverHangsOrPadsIt() throws Exception {
    String target = cluster.targetIds().get(0);
    try (Connection c = connect()) {
      c.send("GET", presignedPath("huge.bin"), Map.of());
      Map<String, String> headers = c.readHead();
      assertThat(headers.get("content-length")).isEqualTo(String.valueOf(HUGE));
      byte[] first = c.in.readNBytes(1 << 20);
      assertThat(first).hasSize(1 << 20);
      cluster.local().kill(target);
      long received = first.length;
      byte[] buf = new byte[256 * 1024];
      int n;
      while ((n = c.in.read(buf)) > 0) { // the socket timeout bounds a hang; EOF must come first
        received += n;
      }
      assertThat(received).as("bytes before the proxy cut the connection").isLessThan(HUGE);
    } finally {
      cluster.local().restart(target);
    }
    // The map may still list the target as active: wait until it listens again.
    Awaitility.await().atMost(Duration.ofSeconds(60)).ignoreExceptions().untilAsserted(() -> {
      byte[] back = s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("large.bin")).asByteArray();
      assertThat(Arrays.equals(back, large)).as("served again after the target came back").isTrue();
    });
  }

  private static String presignedPath(String key) {
    URL url = presigner.presignGetObject(r -> r.signatureDuration(Duration.ofMinutes(10))
        .getObjectRequest(g -> g.bucket(BUCKET).key(key))).url();
    return url.getFile();
  }

  private static String presignedHeadPath(String key) {
    URL url = presigner.presignHeadObject(r -> r.signatureDuration(Duration.ofMinutes(10))
        .headObjectRequest(g -> g.bucket(BUCKET).key(key))).url();
    return url.getFile();
  }

  private static Connection connect() throws IOException {
    URL endpoint = new URL(cluster.endpoint());
    Socket s = new Socket(endpoint.getHost(), endpoint.getPort());
    s.setSoTimeout((int) READ_TIMEOUT.toMillis());
    return new Connection(s, endpoint.getHost() + ":" + endpoint.getPort());
  }

  private record Reply(int status, Map<String, String> headers, byte[] body) {
  }

  /** One keep-alive HTTP/1.1 connection; responses are read by their Content-Length. */
  private static final class Connection implements AutoCloseable {
    private final Socket socket;
    private final String host;
    private final InputStream in;
    private final OutputStream out;
    private int status;

    Connection(Socket socket, String host) throws IOException {
      this.socket = socket;
      this.host = host;
      this.in = new BufferedInputStream(socket.getInputStream(), 64 * 1024);
      this.out = socket.getOutputStream();
    }

    Reply get(String path, Map<String, String> headers) throws IOException {
      return request("GET", path, headers);
    }

    Reply request(String method, String path, Map<String, String> headers) throws IOException {
      send(method, path, headers);
      Map<String, String> h = readHead();
      int length = Integer.parseInt(h.getOrDefault("content-length", "0"));
      byte[] body = method.equals("HEAD") ? new byte[0] : in.readNBytes(length);
      assertThat(body.length).as("%s %s body", method, path).isEqualTo(method.equals("HEAD") ? 0 : length);
      return new Reply(status, h, body);
    }

    void send(String method, String path, Map<String, String> headers) throws IOException {
      StringBuilder sb = new StringBuilder(method).append(' ').append(path).append(" HTTP/1.1\r\nHost: ")
          .append(host).append("\r\n");
      headers.forEach((k, v) -> sb.append(k).append(": ").append(v).append("\r\n"));
      out.write(sb.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII));
      out.flush();
    }

    /** Reads a status line and headers (names lowercased). */
    Map<String, String> readHead() throws IOException {
      ByteArrayOutputStream head = new ByteArrayOutputStream();
      int matched = 0;
      while (matched < 4) {
        int b = in.read();
        if (b < 0) {
          throw new IOException("connection closed inside a response head: " + head);
        }
        head.write(b);
        matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
      }
      String[] lines = head.toString(StandardCharsets.ISO_8859_1).split("\r\n");
      status = Integer.parseInt(lines[0].split(" ")[1]);
      Map<String, String> h = new HashMap<>();
      for (int i = 1; i < lines.length; i++) {
        int colon = lines[i].indexOf(':');
        if (colon > 0) {
          h.put(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).trim());
        }
      }
      return h;
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }
}
