package io.granary.common.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ErrorMetricsTest {
  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final ErrorMetrics errors = new ErrorMetrics(registry, Labels.of("node", "n1"));

  private Map<String, Double> counts() {
    Map<String, Double> m = new HashMap<>();
    CounterSnapshot s = (CounterSnapshot) registry.scrape().get(0);
    s.getDataPoints().forEach(p -> m.put(p.getLabels().get("code"), p.getValue()));
    return m;
  }

  @Test
  void record_sameCode_isOneSeries() {
    errors.record("NoSuchKey");
    errors.record("NoSuchKey");
    errors.record("BucketNotFound");
    assertThat(counts()).containsEntry("NoSuchKey", 2.0).containsEntry("BucketNotFound", 1.0)
        .containsEntry(ErrorMetrics.OTHER, 0.0).hasSize(3);
  }

  @Test
  void record_malformedCode_isOther() {
    errors.record("bad code");
    errors.record("x".repeat(ErrorMetrics.MAX_CODE_LENGTH + 1));
    errors.record("");
    errors.record(null);
    assertThat(counts()).containsEntry(ErrorMetrics.OTHER, 4.0).hasSize(1);
  }

  @Test
  void record_beyondTheCap_isOther() {
    for (int i = 0; i < ErrorMetrics.MAX_CODES + 10; i++) {
      errors.record("Code" + i);
    }
    errors.record("Code0");
    Map<String, Double> c = counts();
    assertThat(c).hasSize(ErrorMetrics.MAX_CODES + 1).containsEntry("Code0", 2.0)
        .containsEntry(ErrorMetrics.OTHER, 10.0).doesNotContainKey("Code" + ErrorMetrics.MAX_CODES);
  }
}
