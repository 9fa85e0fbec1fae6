package io.granary.proxy.membership;

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
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The Java side of the metasync figure of {@code bench/placement.sh}, kept in test scope (not part of the product):
 * how long the primary takes to push a new cluster map to N nodes (issue 21: 1,000 nodes in under 2 s).
 *
 * <p>Starts N {@link MetasyncReceivers} (in-process, one loopback listener each), builds metadata whose map has one
 * proxy (the pusher) and N targets at their URLs, and times a real {@link MetadataPusher} over a real
 * {@link ControlClient} signing with a {@link ClusterSigner}, as a primary with a cluster secret runs it: from
 * {@code push} until {@code awaitAcked} returns, first on fresh connections, then for PUSHES new map versions (one
 * target's weight changed each). The reference, in the same run and interleaved with the pushes, is the floor of the
 * transport: the same bytes PUT to the same N nodes with a plain JDK HttpClient, serialized once and unsigned.
 * Both first run a warm-up on the first 100 nodes with clients of their own, so that the first push's figure is that
 * of fresh connections, not of a cold JIT.
 *
 * <p>Prints one JSON document on stdout, progress on stderr.
 * {@code java -cp ... io.granary.proxy.membership.MetasyncBench [NODES=1000] [PUSHES=10]}
 */
public final class MetasyncBench {
  private static final Duration ACK_WAIT = Duration.ofSeconds(120);
  private static final double GOAL_SECONDS = 2.0;
  private static final int WARM_UP_NODES = 100;
  private static final int WARM_UP_ROUNDS = 20;

  private MetasyncBench() {}

  public static void main(String[] args) throws Exception {
    int nodes = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
    int pushes = args.length > 1 ? Integer.parseInt(args[1]) : 10;
    if (nodes < 1 || pushes < 1) {
      throw new IllegalArgumentException("usage: MetasyncBench [NODES>=1] [PUSHES>=1]");
    }
    byte[] secret = new byte[32];
    new SecureRandom().nextBytes(secret);
    ClusterSigner signer = new ClusterSigner(secret, Clock.systemUTC());
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "membership-p0");
      t.setDaemon(true);
      return t;
    });
    try (MetasyncReceivers receivers = MetasyncReceivers.start(nodes, signer, 1)) {
      System.err.printf("metasync: %d receivers listening%n", nodes);
      warmUp(receivers, Math.min(nodes, WARM_UP_NODES), signer, scheduler);
      run(receivers, nodes, pushes, signer, scheduler);
    } finally {
      scheduler.shutdownNow();
    }
  }

  private static void run(MetasyncReceivers receivers, int nodes, int pushes, ClusterSigner signer,
      ScheduledExecutorService scheduler) throws Exception {
    int signedBefore = receivers.signedRequests();
    double loadBefore = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    // As ProxyNode builds them: 10 s per call, the HttpClient's default executor, the cluster signer.
    MetadataPusher pusher = new MetadataPusher("p0", new ControlClient(Duration.ofSeconds(10), null, signer),
        scheduler);
    HttpClient plain = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    MetasyncSeries push = new MetasyncSeries(pushes + 1);
    MetasyncSeries call = new MetasyncSeries(pushes + 1); // the push() call alone, on the caller's thread
    MetasyncSeries reference = new MetasyncSeries(pushes + 1);
    ClusterMetadata md = metadata(receivers, nodes);
    int bodyBytes = 0;
    for (int round = 0; round <= pushes; round++) {
      if (round > 0) {
        md = nextVersion(md, round);
      }
      push(pusher, md, receivers, nodes, round, push, call);
      byte[] body = ClusterJson.mapper().writeValueAsBytes(md);
      bodyBytes = body.length;
      reference(plain, body, md, receivers, nodes, round, reference);
      System.err.printf(Locale.ROOT, "metasync: round %d map v%d (%d bytes): push %.3f s (cpu %.3f s), reference"
          + " %.3f s (cpu %.3f s)%n", round, md.map().version(), body.length, push.wall(round), push.cpu(round),
          reference.wall(round), reference.cpu(round));
    }
    pusher.close();
    int signed = receivers.signedRequests() - signedBefore;
    if (receivers.refused() > 0 || signed < (long) nodes * (pushes + 1)) {
      throw new AssertionError("receivers refused " + receivers.refused() + " requests and saw only " + signed
          + " signed pushes");
    }
    System.out.printf(Locale.ROOT, "{\"bench\":\"metasync\",\"nodes\":%d,\"pushes\":%d,\"body_bytes\":%d,"
            + "\"goal_s\":%.1f,\"goal_met\":%b,\"push\":%s,\"push_call_median_s\":%.4f,"
            + "\"push_call_cpu_median_s\":%.4f,\"reference\":%s,\"push_over_reference\":%.2f,\"signed_requests\":%d,"
            + "\"loadavg_before\":%.2f,\"loadavg_after\":%.2f,\"java\":\"%s\",\"cpus\":%d}%n",
        nodes, pushes, bodyBytes, GOAL_SECONDS, push.max() < GOAL_SECONDS, push.json(nodes, bodyBytes),
        call.median(), call.cpuMedian(), reference.json(nodes, bodyBytes), push.median() / reference.median(),
        signed, loadBefore, ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
        System.getProperty("java.version"), Runtime.getRuntime().availableProcessors());
  }

  /**
   * Runs pusher, receivers and reference client for a while on the first nodes, with clients of their own, so the
   * measured first push differs from the following ones by its fresh connections rather than by a cold JIT.
   */
  private static void warmUp(MetasyncReceivers receivers, int nodes, ClusterSigner signer,
      ScheduledExecutorService scheduler) throws Exception {
    MetadataPusher pusher = new MetadataPusher("p0", new ControlClient(Duration.ofSeconds(10), null, signer),
        scheduler);
    HttpClient plain = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    ClusterMetadata md = metadata(receivers, nodes);
    MetasyncSeries ignored = new MetasyncSeries(WARM_UP_ROUNDS);
    for (int round = 0; round < WARM_UP_ROUNDS; round++) {
      md = nextVersion(md, round + 1);
      push(pusher, md, receivers, nodes, round, ignored, ignored);
      reference(plain, ClusterJson.mapper().writeValueAsBytes(md), md, receivers, nodes, round, ignored);
    }
    pusher.close();
    System.err.printf("metasync: warmed up on %d nodes%n", nodes);
  }

  /** Map v1 with proxy p0 (the pusher, never pushed to) and targets t0000.. at the receivers' URLs. */
  private static ClusterMetadata metadata(MetasyncReceivers receivers, int nodes) {
    String uuid = UUID.randomUUID().toString();
    Node proxy = new Node("p0", NodeRole.PROXY, "http://127.0.0.1:1", NodeState.ACTIVE, 1);
    Map<String, Node> targets = new TreeMap<>();
    for (int i = 0; i < nodes; i++) {
      Node t = new Node(targetId(i), NodeRole.TARGET, receivers.url(i), NodeState.ACTIVE, 1);
      targets.put(t.id(), t);
    }
    ClusterMap map = new ClusterMap(1, uuid, "p0", Map.of("p0", proxy), targets, Instant.now());
    return new ClusterMetadata(map, BucketMetadata.empty(uuid));
  }

  private static String targetId(int i) {
    return String.format(Locale.ROOT, "t%04d", i);
  }

  /** The next map version: one target's weight changed, every target still active (so every one is awaited). */
  private static ClusterMetadata nextVersion(ClusterMetadata md, int round) {
    Node t = md.map().targets().get(targetId(round % md.map().targets().size()));
    return new ClusterMetadata(md.map().withNode(t.withWeight(t.weight() == 1 ? 2 : 1)), md.buckets());
  }

  /**
   * Times {@code push} until every node acknowledged {@code md} into {@code series}, and the {@code push} call
   * alone into {@code call}: the primary calls it holding its authority's lock.
   */
  private static void push(MetadataPusher pusher, ClusterMetadata md, MetasyncReceivers receivers, int nodes,
      int round, MetasyncSeries series, MetasyncSeries call) throws InterruptedException {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long cpu = cpuNanos();
    long callerCpu = threads.getCurrentThreadCpuTime();
    long start = System.nanoTime();
    pusher.push(md);
    call.add(round, (System.nanoTime() - start) / 1e9, (threads.getCurrentThreadCpuTime() - callerCpu) / 1e9);
    if (!pusher.awaitAcked(md, ACK_WAIT)) {
      throw new AssertionError("map v" + md.map().version() + " not acknowledged by all nodes within " + ACK_WAIT);
    }
    series.add(round, (System.nanoTime() - start) / 1e9, (cpuNanos() - cpu) / 1e9);
    check(md, receivers, nodes, start, round, series);
  }

  /** Times PUTs of {@code body} to every node at once with a plain client: no per-node serialization, no signing. */
  private static void reference(HttpClient plain, byte[] body, ClusterMetadata md, MetasyncReceivers receivers,
      int nodes, int round, MetasyncSeries series) {
    long cpu = cpuNanos();
    long start = System.nanoTime();
    CompletableFuture<?>[] calls = new CompletableFuture<?>[nodes];
    for (int i = 0; i < nodes; i++) {
      HttpRequest req = HttpRequest.newBuilder(URI.create(receivers.url(i) + ApiPaths.METASYNC))
          .PUT(HttpRequest.BodyPublishers.ofByteArray(body)).header("Content-Type", "application/json")
          .timeout(Duration.ofSeconds(10)).build();
      calls[i] = plain.sendAsync(req, HttpResponse.BodyHandlers.ofByteArray()).thenAccept(resp -> {
        if (resp.statusCode() != 200) {
          throw new IllegalStateException(req.uri() + " answered " + resp.statusCode());
        }
      });
    }
    CompletableFuture.allOf(calls).join();
    series.add(round, (System.nanoTime() - start) / 1e9, (cpuNanos() - cpu) / 1e9);
    check(md, receivers, nodes, start, round, series);
  }

  /** Every node holds {@code md}'s map version; records when each answered. */
  private static void check(ClusterMetadata md, MetasyncReceivers receivers, int nodes, long start, int round,
      MetasyncSeries series) {
    for (int i = 0; i < nodes; i++) {
      if (receivers.lastVersion(i) != md.map().version()) {
        throw new AssertionError(targetId(i) + " holds map v" + receivers.lastVersion(i) + ", not v"
            + md.map().version());
      }
      series.answered(round, (receivers.answeredAt(i) - start) / 1e9);
    }
  }

  /** CPU time of this process, all threads: the sender's and the receivers'. */
  private static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }
}
