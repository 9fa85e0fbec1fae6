package io.granary.target.jobs;

import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.Node;
import io.granary.clustermap.NodeRole;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.BucketMetadata;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.clustermap.bucket.Provider;
import io.granary.common.membership.ClusterMetadata;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.membership.MetadataFiles;
import io.granary.target.coldget.CacheFiller;
import io.granary.target.coldget.CacheFiller.FillResult;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/** A real cluster map and bucket metadata, and a scripted {@link CacheFiller}, for job tests. */
final class JobFixtures {
  static final String UUID = "c0ffee00-0000-4000-8000-000000000002";
  static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  static final Bucket REMOTE = new Bucket(Provider.AWS, "data");
  static final Bucket LOCAL = Bucket.local("scratch");
  static final BucketProps REMOTE_PROPS = new BucketProps(REMOTE, "b1", ChecksumType.XXHASH64, T0, null, null);

  private JobFixtures() {}

  /** Waits up to 10 s for {@code condition} (the module has no awaitility). */
  static void eventually(java.util.function.BooleanSupplier condition) {
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("condition not met within 10 s");
      }
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }

  static Node target(String id, NodeState state) {
    return new Node(id, NodeRole.TARGET, "http://127.0.0.1:1" + id.hashCode() % 1000, state, 1);
  }

  /** A map with proxy p1 and the given targets. */
  static ClusterMap map(Node... targets) {
    ClusterMap m = ClusterMap.bootstrap(UUID,
        new Node("p1", NodeRole.PROXY, "http://127.0.0.1:51080", NodeState.ACTIVE, 1), T0);
    for (Node t : targets) {
      m = m.withNode(t);
    }
    return m;
  }

  static ClusterMetadataHolder holder(Path dir, String self, ClusterMap map) throws IOException {
    ClusterMetadataHolder h = new ClusterMetadataHolder(self, new MetadataFiles(List.of(dir)));
    BucketMetadata bmd = BucketMetadata.empty(UUID).with(REMOTE_PROPS)
        .with(new BucketProps(LOCAL, "b2", ChecksumType.XXHASH64, T0));
    h.apply(new ClusterMetadata(map, bmd));
    return h;
  }

  /**
   * A filler whose fills complete when the test says so ({@link #completeAll}) or at once through
   * {@code outcome}; it records the names and the highest number of fills in flight.
   */
  static final class ScriptedFiller implements CacheFiller {
    final Queue<String> names = new ConcurrentLinkedQueue<>();
    final Queue<CompletableFuture<FillResult>> pending = new ConcurrentLinkedQueue<>();
    final AtomicInteger inFlight = new AtomicInteger();
    final AtomicInteger maxInFlight = new AtomicInteger();
    private final Function<String, FillResult> outcome; // null: hold until completeAll

    ScriptedFiller(Function<String, FillResult> outcome) {
      this.outcome = outcome;
    }

    @Override
    public CompletableFuture<FillResult> fill(BucketProps bucket, String name, boolean latest) {
      names.add(name);
      maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
      CompletableFuture<FillResult> f = new CompletableFuture<>();
      if (outcome == null) {
        pending.add(f);
      } else {
        try {
          FillResult r = outcome.apply(name);
          inFlight.decrementAndGet();
          f.complete(r);
        } catch (RuntimeException e) {
          inFlight.decrementAndGet();
          f.completeExceptionally(e);
        }
      }
      return f;
    }

    /** Completes every held fill as FETCHED with 10 bytes; returns how many. */
    int completeAll() {
      int n = 0;
      for (CompletableFuture<FillResult> f; (f = pending.poll()) != null; n++) {
        inFlight.decrementAndGet(); // before completing: the job's callback frees a slot at once
        f.complete(new FillResult(FillResult.Outcome.FETCHED, 10));
      }
      return n;
    }
  }
}
