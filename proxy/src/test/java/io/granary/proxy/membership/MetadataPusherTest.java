package io.granary.proxy.membership;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.granary.clustermap.ClusterJson;
import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.Node;
import io.granary.clustermap.NodeRole;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.bucket.BucketMetadata;
import io.granary.common.api.ApiPaths;
import io.granary.common.auth.ClusterSigner;
import io.granary.common.control.ControlClient;
import io.granary.common.membership.ClusterMetadata;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The pusher over a real signing ControlClient to loopback HTTP servers that stand for nodes: they record what
 * they were sent and answer as told (200, a failure, {@code StaleEpoch}, or only once released).
 */
class MetadataPusherTest {
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final String UUID = "6a1c0f3e-1b7e-4c55-9a35-2f1b1c1d1e1f";
  private static final ClusterSigner SIGNER = ClusterSigner.of("metadata-pusher-test-secret");

  private final List<FakeNode> fakes = new ArrayList<>();
  private ScheduledExecutorService scheduler;
  private ExecutorService http;
  private MetadataPusher pusher;
  private CountDownLatch staleEpoch;

  @BeforeEach
  void setUp() {
    scheduler = Executors.newSingleThreadScheduledExecutor();
    http = Executors.newFixedThreadPool(2);
    staleEpoch = new CountDownLatch(1);
    pusher = new MetadataPusher("p1", new ControlClient(WAIT, http, SIGNER), scheduler, staleEpoch::countDown);
  }

  @AfterEach
  void tearDown() {
    pusher.close();
    fakes.forEach(FakeNode::close);
    scheduler.shutdownNow();
    http.shutdownNow();
  }

  @Test
  void push_sendsEveryOtherNodeTheSameSignedBytes() throws Exception {
    FakeNode t1 = fake();
    FakeNode t2 = fake();
    FakeNode p2 = fake();
    ClusterMetadata md = metadata(1, Map.of("t1", t1, "t2", t2), Map.of("p2", p2));

    pusher.push(md);

    assertThat(pusher.awaitAcked(md, WAIT)).isTrue();
    byte[] json = ClusterJson.mapper().writeValueAsBytes(md);
    for (FakeNode n : List.of(t1, t2, p2)) {
      assertThat(n.bodies).hasSize(1);
      assertThat(n.bodies.get(0)).isEqualTo(json);
      assertThat(n.badSignatures).isZero();
    }
  }

  @Test
  void push_whileANodeHoldsAnEarlierVersion_sendsItOnlyTheNewestNext() throws Exception {
    FakeNode t1 = fake();
    CountDownLatch release = t1.holdNext();
    ClusterMetadata v1 = metadata(1, Map.of("t1", t1), Map.of());
    ClusterMetadata v2 = metadata(2, Map.of("t1", t1), Map.of());
    ClusterMetadata v3 = metadata(3, Map.of("t1", t1), Map.of());

    pusher.push(v1);
    assertThat(t1.awaitBodies(1)).isTrue();
    pusher.push(v2);
    pusher.push(v3);
    release.countDown();

    assertThat(pusher.awaitAcked(v3, WAIT)).isTrue();
    assertThat(t1.bodies).containsExactly(ClusterJson.mapper().writeValueAsBytes(v1),
        ClusterJson.mapper().writeValueAsBytes(v3));
  }

  @Test
  void push_failingNode_isRetriedWithTheSameBytesUntilItAnswers() throws Exception {
    FakeNode t1 = fake();
    t1.answers.add(503);
    t1.answers.add(503);
    ClusterMetadata md = metadata(1, Map.of("t1", t1), Map.of());

    pusher.push(md);

    assertThat(pusher.awaitAcked(md, WAIT)).isTrue();
    assertThat(t1.bodies).hasSize(3).allSatisfy(b -> assertThat(b).isEqualTo(t1.bodies.get(0)));
    assertThat(t1.bodies.get(0)).isEqualTo(ClusterJson.mapper().writeValueAsBytes(md));
  }

  @Test
  void push_sameMetadataAgain_reachesANodeThatAlreadyHasIt() throws Exception {
    FakeNode t1 = fake();
    ClusterMetadata md = metadata(1, Map.of("t1", t1), Map.of());
    pusher.push(md);
    assertThat(pusher.awaitAcked(md, WAIT)).isTrue();

    pusher.push(md); // as the authority does when a node registers again with nothing changed

    assertThat(t1.awaitBodies(2)).isTrue();
    assertThat(t1.bodies.get(1)).isEqualTo(t1.bodies.get(0));
  }

  @Test
  void push_nodeFollowingANewerPrimary_isNoLongerAwaitedAndTheOwnerIsTold() throws Exception {
    FakeNode t1 = fake();
    FakeNode t2 = fake();
    t2.answers.add(409);
    ClusterMetadata md = metadata(1, Map.of("t1", t1, "t2", t2), Map.of());

    pusher.push(md);

    assertThat(staleEpoch.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    assertThat(pusher.awaitAcked(md, WAIT)).isTrue();
    assertThat(t2.bodies).hasSize(1);
  }

  private FakeNode fake() throws IOException {
    FakeNode n = new FakeNode();
    fakes.add(n);
    return n;
  }

  /** Metadata of {@code version}: proxy p1 (the pusher) plus the given targets and proxies, all active. */
  private static ClusterMetadata metadata(long version, Map<String, FakeNode> targets,
      Map<String, FakeNode> proxies) {
    Map<String, Node> t = new TreeMap<>();
    targets.forEach((id, n) -> t.put(id, new Node(id, NodeRole.TARGET, n.url(), NodeState.ACTIVE, 1)));
    Map<String, Node> p = new TreeMap<>();
    p.put("p1", new Node("p1", NodeRole.PROXY, "http://127.0.0.1:1", NodeState.ACTIVE, 1));
    proxies.forEach((id, n) -> p.put(id, new Node(id, NodeRole.PROXY, n.url(), NodeState.ACTIVE, 1)));
    ClusterMap map = new ClusterMap(version, UUID, "p1", p, t, Instant.parse("2026-03-01T12:00:00Z"));
    return new ClusterMetadata(map, BucketMetadata.empty(UUID));
  }

  /** A node's metasync endpoint: records bodies, checks signatures, answers the queued statuses, then 200. */
  private static final class FakeNode implements AutoCloseable {
    final List<byte[]> bodies = Collections.synchronizedList(new ArrayList<>());
    final Deque<Integer> answers = new ConcurrentLinkedDeque<>();
    private final Semaphore arrivals = new Semaphore(0);
    volatile int badSignatures;
    private volatile CountDownLatch hold;
    private final HttpServer server;

    FakeNode() throws IOException {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      server.createContext(ApiPaths.METASYNC, this::handle);
      server.setExecutor(Executors.newCachedThreadPool());
      server.start();
    }

    String url() {
      return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** Makes the next request wait for the returned latch before it is answered. */
    CountDownLatch holdNext() {
      hold = new CountDownLatch(1);
      return hold;
    }

    /** Waits for {@code count} more bodies than earlier calls waited for. */
    boolean awaitBodies(int count) throws InterruptedException {
      return arrivals.tryAcquire(count, WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    private void handle(HttpExchange ex) throws IOException {
      byte[] body;
      try (InputStream in = ex.getRequestBody()) {
        body = in.readAllBytes();
      }
      HttpHeaders h = new DefaultHttpHeaders();
      ex.getRequestHeaders().forEach((k, v) -> h.add(k, v));
      if (!SIGNER.verifyHeaders(ex.getRequestMethod(), ex.getRequestURI().toString(), h)) {
        badSignatures++;
      }
      bodies.add(body);
      arrivals.release();
      CountDownLatch h0 = hold;
      if (h0 != null) {
        hold = null;
        try {
          h0.await(WAIT.toSeconds(), TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      Integer status = answers.poll();
      answer(ex, status == null ? 200 : status);
    }

    private static void answer(HttpExchange ex, int status) throws IOException {
      String json = status == 409 ? "{\"code\":\"StaleEpoch\",\"message\":\"newer primary\"}"
          : status == 200 ? "{\"mapVersion\":1}" : "{\"code\":\"Unavailable\",\"message\":\"try again\"}";
      byte[] out = json.getBytes(StandardCharsets.UTF_8);
      ex.getResponseHeaders().set("Content-Type", "application/json");
      ex.sendResponseHeaders(status, out.length);
      try (OutputStream o = ex.getResponseBody()) {
        o.write(out);
      }
    }

    @Override
    public void close() {
      server.stop(0);
      ((ExecutorService) server.getExecutor()).shutdownNow();
    }
  }
}
