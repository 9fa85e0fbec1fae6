package io.granary.common.metrics;

import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Labels;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code granary_errors_total{code}}: error answers by the code their body carries, recorded on the event loop
 * when the answer has been written.
 *
 * <p>Bounded label set: codes are the compile-time constants of the API exceptions (native and S3), plus codes
 * other nodes of the cluster answered with and a node passes on ({@code RemoteApiException}), which come from
 * the same vocabulary. As a guard against a peer passing arbitrary text, a code must look like one (letters and
 * digits, at most {@value #MAX_CODE_LENGTH} characters) and only the first {@value #MAX_CODES} distinct codes get
 * their own series; anything else counts as {@value #OTHER}. Each code's data point is cached, so a repeated code
 * costs a map lookup and an increment.
 */
final class ErrorMetrics {
  static final String OTHER = "Other";
  static final int MAX_CODES = 100;
  static final int MAX_CODE_LENGTH = 64;

  private final Counter errors;
  private final CounterDataPoint other;
  private final ConcurrentHashMap<String, CounterDataPoint> byCode = new ConcurrentHashMap<>();

  ErrorMetrics(PrometheusRegistry registry, Labels node) {
    errors = Counter.builder().name("granary_errors_total")
        .help("Error answers by the code in their body (S3 code for S3 requests, native code otherwise)")
        .constLabels(node).labelNames("code").withoutExemplars().register(registry);
    other = errors.labelValues(OTHER);
  }

  void record(String code) {
    CounterDataPoint p = code == null ? other : byCode.get(code);
    if (p == null) {
      p = bind(code);
    }
    p.inc();
  }

  private CounterDataPoint bind(String code) {
    if (!wellFormed(code) || byCode.size() >= MAX_CODES) {
      return other;
    }
    // computeIfAbsent: racers get the one point; the size check above may let a few codes past the cap, no more
    // than there are event loops.
    return byCode.computeIfAbsent(code, errors::labelValues);
  }

  static boolean wellFormed(String code) {
    if (code == null || code.isEmpty() || code.length() > MAX_CODE_LENGTH) {
      return false;
    }
    for (int i = 0; i < code.length(); i++) {
      char c = code.charAt(i);
      if (!(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9')) {
        return false;
      }
    }
    return true;
  }
}
