package io.granary.target.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.granary.backend.RemoteBuckets;
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
import io.granary.common.http.Transport;
import io.granary.common.http.client.UpstreamPool;
import io.granary.common.membership.ClusterMetadata;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.membership.MetadataFiles;
import io.granary.common.metrics.NodeMetrics;
import io.granary.target.coldget.ColdStats;
import io.granary.target.jobs.TargetJobs;
import io.granary.target.rebalance.RebalanceConfig;
import io.granary.target.rebalance.Rebalancer;
import io.granary.target.rebalance.SendLoops;
import io.granary.target.storage.Mountpath;
import io.granary.target.storage.ObjectStore;
import io.granary.target.storage.PutOperation;
import io.granary.target.storage.PutOptions;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoopGroup;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The target's cold-GET, job and rebalance series as a scrape shows them: names, types and bounded labels. */
class TargetMetricsTest {
  private final NodeMetrics metrics = new NodeMetrics("t1");

  private String scrape() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrometheusTextFormatWriter.create().write(out, metrics.registry().scrape());
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void cold_everyRemoteProvider_isExportedFromTheStart() throws Exception {
    TargetMetrics.cold(metrics, new ColdStats(), () -> 3, () -> 5);
    assertThat(scrape())
        .contains("granary_cold_get_fetches_total{node=\"t1\",provider=\"aws\"} 0.0")
        .contains("granary_cold_get_bytes_total{node=\"t1\",provider=\"gcp\"} 0.0")
        .contains("granary_cache_hits_total{node=\"t1\",provider=\"aws\"} 0.0")
        .contains("granary_cache_misses_total{node=\"t1\",provider=\"gcp\"} 0.0")
        .contains("# TYPE granary_cold_get_duration_seconds histogram")
        .contains("granary_cold_get_duration_seconds_count{node=\"t1\",provider=\"aws\"} 0")
        .contains("granary_cold_get_first_byte_seconds_bucket{node=\"t1\",provider=\"gcp\",le=\"+Inf\"} 0")
        .contains("granary_cold_get_in_flight{node=\"t1\"} 3.0")
        .contains("granary_cold_get_waiters{node=\"t1\"} 5.0")
        .doesNotContain("provider=\"ais\"");
  }

  @Test
  void jobs_withNoJobs_areZeroByKind_andNoPerJobSeries(@TempDir Path dir) throws Exception {
    ClusterMetadataHolder holder = new ClusterMetadataHolder("t1", new MetadataFiles(List.of(dir)));
    try (RemoteBuckets remotes = new RemoteBuckets(Duration.ofSeconds(1), 1);
        TargetJobs jobs = new TargetJobs("t1", holder, (b, n, l) -> null, remotes, 1, 1)) {
      TargetMetrics.jobs(metrics, jobs);
      assertThat(scrape())
          .contains("granary_jobs_running{kind=\"prefetch\",node=\"t1\"} 0.0")
          .contains("granary_jobs_finished_total{kind=\"prefetch\",node=\"t1\",state=\"aborted\"} 0.0")
          .contains("granary_job_objects_total{kind=\"prefetch\",node=\"t1\",outcome=\"not_found\"} 0.0")
          .contains("granary_job_bytes_total{kind=\"prefetch\",node=\"t1\"} 0.0")
          .doesNotContain("granary_job_done_objects{");
    }
  }

  /** The value of the unlabelled (but for {@code node}) series {@code name} in a scrape, or null when absent. */
  private Double sample(String name) throws Exception {
    String prefix = name + "{node=\"t1\"} ";
    for (String line : scrape().split("\n")) {
      if (line.startsWith(prefix)) {
        return Double.parseDouble(line.substring(prefix.length()));
      }
    }
    return null;
  }

  /**
   * A real rebalancer on t1, in a map where t2 (suspended, so it keeps its place but takes nothing) owns some of
   * the objects t1 holds: writes for t2 wait as handoffs, and a rebalance's walk counts what to move and waits for
   * t2 until the rebalance is aborted. Nothing moves, so the counters stay at 0.
   */
  @Test
  void rebalance_walkWaitingForASuspendedOwner_runsWithItsBytesLeft_untilAborted(@TempDir Path dir)
      throws Exception {
    BucketProps bucket = new BucketProps(Bucket.local("data"), "b1", ChecksumType.XXHASH64, Instant.EPOCH);
    ClusterMap map = new ClusterMap(1, "c1", "p1", Map.of("p1", node("p1", NodeRole.PROXY, NodeState.ACTIVE)),
        Map.of("t1", node("t1", NodeRole.TARGET, NodeState.ACTIVE),
            "t2", node("t2", NodeRole.TARGET, NodeState.SUSPENDED)), Instant.EPOCH);
    BucketMetadata buckets = BucketMetadata.empty("c1").with(bucket);
    ClusterMetadataHolder holder = new ClusterMetadataHolder("t1", new MetadataFiles(List.of(dir.resolve("sys"))));
    holder.apply(new ClusterMetadata(map, buckets));
    EventLoopGroup loops = Transport.best().newGroup(1, "loop-t1");
    try (ObjectStore store = ObjectStore.open("t1", List.of(Mountpath.open(dir.resolve("mp"))), 0);
        UpstreamPool pool = new UpstreamPool(Transport.best(), 1, 1);
        Rebalancer rebalancer = new Rebalancer("t1", holder, store, pool, new SendLoops(loops, loops), null,
            new RebalanceConfig(2, 0),
            new Rebalancer.Space() {
              @Override
              public long heldBytes() {
                return 0;
              }

              @Override
              public long roomBytes() {
                return 0;
              }
            })) {
      rebalancer.start();
      TargetMetrics.rebalance(metrics, rebalancer);
      assertThat(scrape())
          .contains("# TYPE granary_rebalance_sent_objects_total counter")
          .contains("granary_rebalance_sent_objects_total{node=\"t1\"} 0.0")
          .contains("granary_rebalance_sent_bytes_total{node=\"t1\"} 0.0")
          .contains("granary_rebalance_received_objects_total{node=\"t1\"} 0.0")
          .contains("granary_rebalance_received_bytes_total{node=\"t1\"} 0.0")
          .contains("granary_rebalance_failures_total{node=\"t1\"} 0.0")
          .contains("# TYPE granary_rebalance_walking gauge")
          .contains("granary_rebalance_walking{node=\"t1\"} 0.0")
          .contains("granary_rebalance_remaining_bytes{node=\"t1\"} 0.0")
          .contains("granary_rebalance_pending_handoffs{node=\"t1\"} 0.0")
          .contains("granary_rebalance_id{node=\"t1\"} 0.0");

      long misplacedBytes = 0;
      int misplaced = 0;
      for (int i = 0; i < 20; i++) {
        String name = "obj-" + i;
        byte[] body = new byte[1000 + i];
        PutOperation op = store.beginPut(bucket, name, PutOptions.nativePut(body.length, List.of()));
        op.write(Unpooled.wrappedBuffer(body));
        op.finish();
        if (holder.require().placement().owner(PlacementKey.digest(bucket.bucket(), name)).orElseThrow().id()
            .equals("t2")) {
          misplacedBytes += body.length;
          misplaced++;
        }
      }
      assertThat(misplaced).as("HRW gives t2 some of 20 names").isPositive();
      double handoffs = misplaced;
      await().atMost(20, TimeUnit.SECONDS)
          .untilAsserted(() -> assertThat(sample("granary_rebalance_pending_handoffs")).isEqualTo(handoffs));

      Rebalance running = Rebalance.next(null, Instant.now());
      holder.apply(new ClusterMetadata(map.withRebalance(running), buckets));
      double bytesLeft = misplacedBytes;
      await().atMost(20, TimeUnit.SECONDS).untilAsserted(() -> {
        assertThat(sample("granary_rebalance_walking")).isEqualTo(1.0);
        assertThat(sample("granary_rebalance_remaining_bytes")).as("the counting pass is over").isEqualTo(bytesLeft);
      });
      assertThat(sample("granary_rebalance_id")).isEqualTo(1.0);

      holder.apply(new ClusterMetadata(map.withRebalance(running).withRebalance(running.ended(
          Rebalance.State.ABORTED, Instant.now())), buckets));
      await().atMost(20, TimeUnit.SECONDS)
          .untilAsserted(() -> assertThat(sample("granary_rebalance_walking")).isEqualTo(0.0));
      assertThat(sample("granary_rebalance_remaining_bytes")).isEqualTo(0.0);
      assertThat(sample("granary_rebalance_id")).isEqualTo(1.0);
      assertThat(sample("granary_rebalance_sent_objects_total")).isEqualTo(0.0);
      assertThat(sample("granary_rebalance_failures_total")).as("stopped, not failed").isEqualTo(0.0);
    } finally {
      loops.shutdownGracefully(0, 0, TimeUnit.SECONDS);
    }
  }

  private static Node node(String id, NodeRole role, NodeState state) {
    return new Node(id, role, "http://127.0.0.1:9", state, 1);
  }
}
