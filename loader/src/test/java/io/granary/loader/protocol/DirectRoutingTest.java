package io.granary.loader.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.granary.clustermap.ClusterJson;
import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.Node;
import io.granary.clustermap.NodeRole;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.hrw.PlacementKey;
import io.granary.common.auth.ClusterSigner;
import io.granary.loader.LoaderException;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code --direct} against stand-ins on loopback: a "proxy" that serves only the cluster map and the bucket probe,
 * and "targets" that, like real ones, refuse requests without a valid cluster signature. Checks that each request
 * reaches the HRW owner the proxy would pick, signed, and that the proxy sees no object request.
 */
class DirectRoutingTest {
  private static final String SECRET = "direct-routing-test-secret";
  private static final String BUCKET = "bench";
  private static final Pattern RANGE = Pattern.compile("bytes=(\\d+)-(\\d*)");

  static {
    // Small answers in one segment: without it, Nagle and delayed ACKs cost ~40 ms a request on loopback.
    System.setProperty("sun.net.httpserver.nodelay", "true");
  }

  private HttpServer proxy;
  private final List<String> proxyRequests = Collections.synchronizedList(new ArrayList<>());
  private volatile byte[] mapJson;
  private final Map<String, HttpServer> targets = new LinkedHashMap<>();
  /** Object requests each target served, as "METHOD name". */
  private final Map<String, List<String>> served = new ConcurrentHashMap<>();
  private final Map<String, byte[]> stored = new ConcurrentHashMap<>();
  private final ClusterSigner verifier = ClusterSigner.of(SECRET);

  @BeforeEach
  void start() throws Exception {
    proxy = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    proxy.createContext("/", ex -> {
      proxyRequests.add(ex.getRequestMethod() + " " + ex.getRequestURI().getRawPath());
      String path = ex.getRequestURI().getRawPath();
      if (path.equals("/v1/cluster/map")) {
        reply(ex, 200, mapJson);
      } else if (path.equals("/v1/buckets/" + BUCKET)) {
        reply(ex, 200, null);
      } else {
        reply(ex, 307, null); // an object request: what direct mode must never send here
      }
    });
    proxy.start();
    for (String id : List.of("t1", "t2", "t3")) {
      targets.put(id, target(id));
    }
  }

  @AfterEach
  void stop() {
    proxy.stop(0);
    targets.values().forEach(t -> t.stop(0));
  }

  private HttpServer target(String id) throws IOException {
    HttpServer t = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    served.put(id, Collections.synchronizedList(new ArrayList<>()));
    t.createContext("/", ex -> {
      URI u = ex.getRequestURI();
      String raw = u.getRawPath() + (u.getRawQuery() == null ? "" : "?" + u.getRawQuery());
      if (!verifier.verify(ex.getRequestMethod(), raw, new DefaultHttpHeaders())) {
        reply(ex, 403, "{\"code\":\"AccessDenied\",\"message\":\"unsigned\"}".getBytes(StandardCharsets.UTF_8));
        return;
      }
      String name = u.getPath().substring(("/v1/objects/" + BUCKET + "/").length());
      served.get(id).add(ex.getRequestMethod() + " " + name);
      byte[] body = stored.get(name);
      switch (ex.getRequestMethod()) {
        case "PUT" -> {
          stored.put(name, ex.getRequestBody().readAllBytes());
          reply(ex, 200, null);
        }
        case "DELETE" -> reply(ex, stored.remove(name) == null ? 404 : 204, null);
        case "HEAD" -> reply(ex, body == null ? 404 : 200, null);
        default -> {
          String range = ex.getRequestHeaders().getFirst("Range");
          Matcher m = range == null ? null : RANGE.matcher(range);
          if (body == null) {
            reply(ex, 404, null);
          } else if (m != null && m.matches()) {
            int from = Integer.parseInt(m.group(1));
            int to = m.group(2).isEmpty() ? body.length - 1 : Math.min(body.length - 1, Integer.parseInt(m.group(2)));
            reply(ex, 206, Arrays.copyOfRange(body, from, to + 1));
          } else {
            reply(ex, 200, body);
          }
        }
      }
    });
    t.start();
    return t;
  }

  private static void reply(HttpExchange ex, int status, byte[] body) throws IOException {
    boolean none = body == null || ex.getRequestMethod().equals("HEAD") || status == 204;
    ex.sendResponseHeaders(status, none ? -1 : body.length);
    try (OutputStream out = ex.getResponseBody()) {
      if (!none) {
        out.write(body);
      }
    }
  }

  private static String url(HttpServer s) {
    return "http://127.0.0.1:" + s.getAddress().getPort();
  }

  /** Serves a map of version {@code v} with the given targets (id to URL and state). */
  private ClusterMap serveMap(long v, Map<String, Node> targetNodes) throws Exception {
    Node p1 = new Node("p1", NodeRole.PROXY, url(proxy), NodeState.ACTIVE, 1);
    ClusterMap map = new ClusterMap(v, "uuid-direct", "p1", Map.of("p1", p1), targetNodes, Instant.now());
    mapJson = ClusterJson.mapper().writeValueAsBytes(map);
    return map;
  }

  private static Node node(String id, String url, NodeState state) {
    return new Node(id, NodeRole.TARGET, url, state, 1);
  }

  private Map<String, Node> live(String... ids) {
    Map<String, Node> m = new LinkedHashMap<>();
    for (String id : ids) {
      m.put(id, node(id, url(targets.get(id)), NodeState.ACTIVE));
    }
    return m;
  }

  private static String owner(ClusterMap map, String name) {
    return map.placement().owner(PlacementKey.digest(Bucket.local(BUCKET), name)).orElseThrow().id();
  }

  private NativeClient client(String secret) {
    return new NativeClient(URI.create(url(proxy)), BUCKET, ClusterSigner.of(secret));
  }

  private static byte[] content(String name) {
    return ("content of " + name).repeat(50).getBytes(StandardCharsets.UTF_8);
  }

  private static void put(NativeClient c, String name) throws Exception {
    byte[] b = content(name);
    c.put(name, b.length, () -> new ByteArrayInputStream(b));
  }

  private static byte[] get(NativeClient c, String name, long off, long len) throws Exception {
    byte[][] got = new byte[1][];
    c.get(name, off, len, (in, etag) -> {
      got[0] = in.readAllBytes();
      return got[0].length;
    });
    return got[0];
  }

  @Test
  void direct_putGetRangeDelete_reachTheHrwOwnerSigned_andTheProxySeesNoObjectRequest() throws Exception {
    ClusterMap map = serveMap(4, live("t1", "t2", "t3"));
    NativeClient c = client(SECRET);
    c.probe(null);
    List<String> names = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      names.add("train/shard " + i + (i % 4 == 0 ? "-ünï" : "") + ".tar");
    }
    for (String n : names) {
      put(c, n);
      assertThat(get(c, n, 0, 0)).isEqualTo(content(n));
      assertThat(get(c, n, 10, 5)).isEqualTo(Arrays.copyOfRange(content(n), 10, 15));
      c.delete(n);
    }
    for (String n : names) {
      String id = owner(map, n);
      assertThat(served.get(id)).as("%s is owned by %s", n, id)
          .contains("PUT " + n, "GET " + n, "DELETE " + n);
    }
    assertThat(served.values().stream().mapToInt(List::size).sum()).as("probe HEADs + 4 requests per name")
        .isEqualTo(3 + 4 * names.size());
    assertThat(served.values()).allSatisfy(l -> assertThat(l).isNotEmpty());
    assertThat(proxyRequests).containsExactly("HEAD /v1/buckets/" + BUCKET, "GET /v1/cluster/map");
  }

  @Test
  void direct_wrongSecret_failsTheProbeInOneLine() throws Exception {
    serveMap(1, live("t1", "t2"));
    assertThatThrownBy(() -> client("not-the-cluster-secret").probe(null)).isInstanceOf(LoaderException.class)
        .hasMessageContaining("refused a signed request (403): the cluster secret is not this cluster's")
        .hasMessageNotContaining("\n");
  }

  @Test
  void direct_unreachableTarget_failsTheProbeNamingIt() throws Exception {
    Map<String, Node> m = live("t1");
    m.put("t9", node("t9", "http://127.0.0.1:" + freePort(), NodeState.ACTIVE));
    serveMap(1, m);
    assertThatThrownBy(() -> client(SECRET).probe(null)).isInstanceOf(LoaderException.class)
        .hasMessageContaining("connection refused").hasMessageContaining("target t9");
  }

  @Test
  void direct_ownerRefusesConnections_mapRefetched_requestSentOnceMore() throws Exception {
    // v1 places objects on t9, whose port nothing listens on; v2 has taken t9 out of placement.
    Map<String, Node> v1 = live("t1", "t2");
    String dead = "http://127.0.0.1:" + freePort();
    v1.put("t9", node("t9", dead, NodeState.ACTIVE));
    ClusterMap m1 = serveMap(1, v1);
    NativeClient c = client(SECRET);
    String first = "warm-up";
    int i = 0;
    while (owner(m1, first).equals("t9")) {
      first = "warm-up-" + i++;
    }
    put(c, first); // fetches v1 (no probe: it would stop at t9)
    Thread.sleep(TargetRoutes.MIN_REFRESH_MILLIS + 50);
    Map<String, Node> v2 = live("t1", "t2");
    v2.put("t9", node("t9", dead, NodeState.MAINTENANCE));
    ClusterMap m2 = serveMap(2, v2);
    List<String> onDead = new ArrayList<>();
    for (int k = 0; onDead.size() < 5; k++) {
      if (owner(m1, "obj-" + k).equals("t9")) {
        onDead.add("obj-" + k);
      }
    }
    for (String n : onDead) {
      put(c, n);
      assertThat(get(c, n, 0, 0)).isEqualTo(content(n));
      assertThat(served.get(owner(m2, n))).contains("PUT " + n);
    }
    assertThat(proxyRequests).containsExactly("GET /v1/cluster/map", "GET /v1/cluster/map");
  }

  @Test
  void direct_offlineOwner_is503WithoutARequest() throws Exception {
    Map<String, Node> m = live("t1");
    m.put("t2", node("t2", url(targets.get("t2")), NodeState.OFFLINE));
    ClusterMap map = serveMap(1, m);
    NativeClient c = client(SECRET);
    String n = "x";
    for (int i = 0; !owner(map, n).equals("t2"); i++) {
      n = "x" + i;
    }
    String name = n;
    assertThatThrownBy(() -> put(c, name)).isInstanceOf(StatusException.class)
        .hasMessageContaining("503 target t2 that owns '" + name + "' is offline");
    assertThat(served.get("t2")).isEmpty();
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
