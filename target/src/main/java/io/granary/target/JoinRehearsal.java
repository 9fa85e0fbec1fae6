package io.granary.target;

import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.Node;
import io.granary.clustermap.NodeRole;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.Rebalance;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.BucketMetadata;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.clustermap.hrw.PlacementKey;
import io.granary.common.api.ApiPaths;
import io.granary.common.api.GranaryHeaders;
import io.granary.common.auth.ClusterSigner;
import io.granary.common.control.ControlClient;
import io.granary.target.storage.FileOps;
import io.granary.common.membership.ClusterMetadata;
import io.granary.common.rebalance.RebalanceProgress;
import io.granary.target.rebalance.ObjectTransport;
import io.granary.target.rebalance.RebalanceConfig;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Before a target registers, rehearses what a joining target does in its first seconds, on two throwaway targets in
 * this same JVM (under {@code .granary/rehearsal} of its first mountpath, removed afterwards): objects are written,
 * read, and moved between the two by real rebalances, while reads at their new owner are redirected to the holder or
 * wait for the object to be pushed. The JIT compiles code, not instances, so the joining target's own request path is
 * then compiled and its classes loaded.
 *
 * <p>Why not rehearse on the target itself: before it registers it holds no bucket and no map, and a rebalance toward
 * it needs a second target. The pre-join warm-up that only sent 404s to itself left every path a joining target then
 * runs interpreted (serving a file, redirecting to the holder, receiving, verifying and committing a pushed copy), and
 * on two busy cores its compiler, at nice 10, got no CPU until the rebalance's first second had passed
 * (bench/rebalance.sh, p99 part: request threads ran 125 ms and waited 450 ms on the run queue in the 0.6 s after
 * registering, at about 4 ms of CPU per GET).
 *
 * <p>A rehearsal that fails is logged and changes nothing: the target then joins as it would have without it.
 */
public final class JoinRehearsal {
  private static final Logger log = LoggerFactory.getLogger(JoinRehearsal.class);
  /** The scratch directory under a mountpath's system directory; removed after each rehearsal and at each start. */
  static final String SCRATCH = "rehearsal";
  /** The throwaway targets' ids start with it (consoles drop their lines below WARN). */
  public static final String NODE_ID_PREFIX = "granary-rehearsal-";
  static final String BUCKET = "granary-rehearsal";
  private static final String UUID = "72656865-6172-4000-8000-73616c000000"; // a cluster no real node belongs to
  private static final int OBJECTS = 48;
  /** A small sample (ResNet-like), a medium and a 1 MiB object: the sizes training reads cover. */
  private static final int[] SIZES = {16 << 10, 128 << 10, 1 << 20};
  private static final int MAX_ROUNDS = 12;
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

  /** What a rehearsal did; {@code error} null when it ran to the end. */
  record Result(int rounds, int requests, long moved, long millis, String error) {
    @Override
    public String toString() {
      return rounds + " rebalances, " + requests + " requests, " + moved + " objects moved in " + millis + " ms"
          + (error == null ? "" : "; stopped early: " + error);
    }
  }

  private final ControlClient client;
  private final ClusterSigner signer;
  private final byte[] data = new byte[SIZES[SIZES.length - 1]];
  private final Bucket bucket = Bucket.local(BUCKET);
  private ClusterMap map;
  private BucketMetadata buckets;
  private Node a;
  private Node b;
  private final AtomicInteger requests = new AtomicInteger(); // also counted on the client's threads (redirects)
  private long moved;
  private int rounds;

  private JoinRehearsal(ClusterSigner signer) {
    this.signer = signer;
    this.client = new ControlClient(REQUEST_TIMEOUT, null, signer);
    ThreadLocalRandom.current().nextBytes(data);
  }

  /**
   * Rehearses under {@code scratch} (which it empties first and removes at the end) with the cluster secret and
   * limits of {@code cfg}, until {@code budget} has passed (one rebalance at least).
   */
  static Result run(TargetConfig cfg, Path scratch, Duration budget) {
    long start = System.nanoTime();
    JoinRehearsal r = new JoinRehearsal(cfg.clusterSecret() == null ? null : ClusterSigner.of(cfg.clusterSecret()));
    String error = null;
    List<TargetNode> nodes = new ArrayList<>(2);
    try {
      FileOps.deleteTree(scratch); // what a rehearsal killed midway left
      for (String n : List.of("a", "b")) {
        nodes.add(TargetNode.open(config(cfg, NODE_ID_PREFIX + n, scratch.resolve(n)), reason -> { }));
      }
      for (TargetNode n : nodes) {
        n.followOnly();
      }
      r.play(nodes.get(0), nodes.get(1), start + budget.toNanos());
    } catch (Exception e) {
      error = e instanceof ExecutionException && e.getCause() != null ? e.getCause().toString() : e.toString();
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
    } finally {
      for (TargetNode n : nodes) {
        try {
          n.close();
        } catch (IOException | RuntimeException e) {
          error = error != null ? error : "closing " + n.id() + ": " + e;
        }
      }
      try {
        FileOps.deleteTree(scratch);
      } catch (IOException e) {
        error = error != null ? error : "removing " + scratch + ": " + e;
      }
    }
    return new Result(r.rounds, r.requests.get(), r.moved, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start),
        error);
  }

  /**
   * A throwaway target on loopback with the joining target's limits and secret, its own mountpath, a primary that is
   * never called, no warm-up of its own and an uncapped rebalance (the rehearsal measures nothing).
   */
  private static TargetConfig config(TargetConfig cfg, String id, Path mountpath) throws IOException {
    Files.createDirectories(mountpath);
    RebalanceConfig rb = cfg.rebalance();
    return new TargetConfig(id, "127.0.0.1", 0, null, List.of(mountpath), "http://127.0.0.1:9", 1, 0,
        Math.min(2, cfg.ioThreads()), Math.min(4, cfg.diskThreads()), cfg.http(), cfg.rejoinCheck(),
        cfg.multipartTtl(), cfg.clusterSecret(), cfg.cache(),
        new RebalanceConfig(rb.streams(), 0, rb.neighborRelaySize(), Duration.ZERO, false));
  }

  private void play(TargetNode nodeA, TargetNode nodeB, long deadline) throws Exception {
    Instant now = Instant.now();
    a = new Node(nodeA.id(), NodeRole.TARGET, nodeA.url(), NodeState.ACTIVE, 1);
    b = new Node(nodeB.id(), NodeRole.TARGET, nodeB.url(), NodeState.JOINING, 1);
    map = ClusterMap.bootstrap(UUID, new Node(NODE_ID_PREFIX + "proxy", NodeRole.PROXY, "http://127.0.0.1:9",
        NodeState.ACTIVE, 1), now).withNode(a).withNode(b);
    buckets = BucketMetadata.empty(UUID).with(new BucketProps(bucket, "rehearsal", ChecksumType.XXHASH64, now));
    publish();
    all(i -> put(i));
    boolean bPlaced = false;
    do {
      bPlaced = !bPlaced; // b joins, then leaves for maintenance and its objects come back, and so on
      b = b.withState(bPlaced ? NodeState.ACTIVE : NodeState.MAINTENANCE);
      Rebalance rb = new Rebalance(rounds + 1, Rebalance.State.RUNNING, Instant.now(), null);
      map = map.withNode(b).startingRebalance(rb);
      publish();
      // While objects move: redirected reads of half of them at their new owner (sent on to the holder), reads
      // of the other half that wait there for a push, and writes of a few to the new owner
      all(i -> i % 8 == 0 ? put(i) : read(i, i % 2 == 0));
      awaitDone(rb.id(), deadline + TimeUnit.SECONDS.toNanos(10));
      map = map.withRebalance(new Rebalance(rb.id(), Rebalance.State.FINISHED, rb.started(), Instant.now()));
      publish();
      all(i -> read(i, true)); // every object on its owner: served from a file
      rounds++;
    } while (rounds < MAX_ROUNDS && System.nanoTime() < deadline);
  }

  /** Sends the current metadata to both targets as the primary would, and waits for both to hold it. */
  private void publish() throws Exception {
    ClusterMetadata md = new ClusterMetadata(map, buckets);
    for (Node n : List.of(a, b)) {
      requests.incrementAndGet();
      client.send("PUT", n.url() + ApiPaths.METASYNC, md, Map.class).get(REQUEST_TIMEOUT.toMillis(),
          TimeUnit.MILLISECONDS);
    }
  }

  /** Runs {@code request} for every object, 8 at a time; throws the first failure. */
  private void all(IntFunction<CompletableFuture<Void>> request) throws Exception {
    List<CompletableFuture<Void>> batch = new ArrayList<>(8);
    for (int i = 0; i < OBJECTS; i++) {
      batch.add(request.apply(i));
      if (batch.size() == 8 || i == OBJECTS - 1) {
        CompletableFuture.allOf(batch.toArray(CompletableFuture[]::new)).get(2 * REQUEST_TIMEOUT.toMillis(),
            TimeUnit.MILLISECONDS);
        batch.clear();
      }
    }
  }

  private String name(int i) {
    return "rehearsal/object-" + i;
  }

  private int size(int i) {
    return SIZES[i % SIZES.length];
  }

  private Node owner(int i) {
    return map.placement().owner(PlacementKey.digest(bucket, name(i))).orElseThrow();
  }

  /** The URL a proxy redirects a client to: the map version it routed by, signed when the cluster has a secret. */
  private String redirectUrl(Node to, String method, int i) {
    String uri = ApiPaths.OBJECTS + BUCKET + "/" + name(i) + "?" + GranaryHeaders.MAP_VERSION_PARAM + "="
        + map.version();
    return to.url() + (signer == null ? uri : signer.signUrl(method, uri, 60));
  }

  private CompletableFuture<Void> put(int i) {
    requests.incrementAndGet();
    return client.forward("PUT", redirectUrl(owner(i), "PUT", i), java.util.Arrays.copyOf(data, size(i)),
        "application/octet-stream").thenAccept(resp -> expect(resp.statusCode() == 200, "PUT", i, resp.statusCode()));
  }

  /**
   * GET at the owner: {@code redirected} as a proxy's redirect sends a native client (an object not there yet
   * answers 307 to its holder, which is followed), else as a peer's plain signed read (which waits for the push).
   */
  private CompletableFuture<Void> read(int i, boolean redirected) {
    requests.incrementAndGet();
    String url = redirected ? redirectUrl(owner(i), "GET", i) : owner(i).url() + ApiPaths.OBJECTS + BUCKET + "/"
        + name(i);
    return client.stream(url).thenCompose(resp -> {
      if (resp.statusCode() == 307) {
        close(resp);
        requests.incrementAndGet();
        String to = resp.headers().firstValue("Location").orElse(null);
        expect(to != null, "GET", i, 307);
        return client.stream(to);
      }
      return CompletableFuture.completedFuture(resp);
    }).thenAccept(resp -> {
      long got;
      try (InputStream in = resp.body()) {
        got = in.transferTo(java.io.OutputStream.nullOutputStream());
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      expect(resp.statusCode() == 200 && got == size(i), "GET", i, resp.statusCode());
    });
  }

  private static void close(HttpResponse<InputStream> resp) {
    try {
      resp.body().close();
    } catch (IOException e) {
      // the connection is dropped instead of reused
    }
  }

  private void expect(boolean ok, String method, int i, int status) {
    if (!ok) {
      throw new IllegalStateException(method + " " + BUCKET + "/" + name(i) + " answered " + status);
    }
  }

  /** Waits until both targets have walked rebalance {@code id}, as the primary does by asking each for progress. */
  private void awaitDone(long id, long deadline) throws Exception {
    for (Node n : List.of(a, b)) {
      while (true) {
        requests.incrementAndGet();
        RebalanceProgress p = client.get(n.url() + ObjectTransport.PROGRESS, RebalanceProgress.class)
            .get(REQUEST_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        if (p.doneWith(id)) {
          moved += p.sent();
          break;
        }
        if (System.nanoTime() > deadline) {
          throw new TimeoutException(n.id() + " still walking rebalance " + id + ": " + p.state());
        }
        Thread.sleep(10); // polling a peer's progress, as the primary does (each second) — no event to wait on
      }
    }
  }
}
