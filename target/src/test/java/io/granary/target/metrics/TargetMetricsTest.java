package io.granary.target.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.backend.RemoteBuckets;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.membership.MetadataFiles;
import io.granary.common.metrics.NodeMetrics;
import io.granary.target.coldget.ColdStats;
import io.granary.target.jobs.TargetJobs;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The target's cold-GET and job series as a scrape shows them: names, types and bounded labels. */
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
}
