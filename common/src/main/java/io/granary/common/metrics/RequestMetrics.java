package io.granary.common.metrics;

import io.granary.common.http.ExchangeListener;
import io.netty.handler.codec.http.HttpMethod;
import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.Unit;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * HTTP request metrics of one node, recorded once per answered request by the dispatcher on an event loop:
 * {@code granary_requests_total{method,status}}, {@code granary_request_duration_seconds{method}} (classic
 * buckets) and {@code granary_request_body_bytes_total} / {@code granary_response_body_bytes_total} by method;
 * error answers also by their code, {@code granary_errors_total{code}} ({@link ErrorMetrics}).
 *
 * <p>No allocation per request: data points are looked up once per method (all of them up front) and once per
 * method and status (on first use, then cached in an array indexed by both).
 */
public final class RequestMetrics implements ExchangeListener {
  private static final HttpMethod[] METHODS = {HttpMethod.GET, HttpMethod.HEAD, HttpMethod.PUT, HttpMethod.POST,
      HttpMethod.DELETE, HttpMethod.OPTIONS, HttpMethod.PATCH};
  private static final int OTHER = METHODS.length;
  private static final String[] METHOD_LABELS = labels();
  private static final int MIN_STATUS = 100;
  private static final int STATUSES = 500; // 100..599
  /** Seconds: from cache hits served in well under a millisecond to cold GETs of large objects. */
  private static final double[] BUCKETS = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
      5, 10, 30, 60};

  private final Counter requests;
  private final AtomicReferenceArray<CounterDataPoint> byMethodStatus =
      new AtomicReferenceArray<>((OTHER + 1) * STATUSES);
  private final DistributionDataPoint[] duration = new DistributionDataPoint[OTHER + 1];
  private final CounterDataPoint[] requestBytes = new CounterDataPoint[OTHER + 1];
  private final CounterDataPoint[] responseBytes = new CounterDataPoint[OTHER + 1];
  private final ErrorMetrics errors;

  // Every metric here is updated on the event loops for each request: no exemplars (we have no traces to link, and
  // sampling them looked for a span context on every update; on a fresh JVM its first use stalled a loop ~90 ms).
  RequestMetrics(PrometheusRegistry registry, Labels node) {
    requests = Counter.builder().name("granary_requests_total").help("HTTP requests answered, by method and status")
        .constLabels(node).labelNames("method", "status").withoutExemplars().register(registry);
    Histogram latency = Histogram.builder().name("granary_request_duration_seconds")
        .help("Time from a request's head to the end of its answer's write").unit(Unit.SECONDS)
        .constLabels(node).labelNames("method").classicOnly().classicUpperBounds(BUCKETS).withoutExemplars()
        .register(registry);
    Counter in = Counter.builder().name("granary_request_body_bytes_total").help("Request body bytes received")
        .unit(Unit.BYTES).constLabels(node).labelNames("method").withoutExemplars().register(registry);
    Counter out = Counter.builder().name("granary_response_body_bytes_total").help("Response body bytes sent")
        .unit(Unit.BYTES).constLabels(node).labelNames("method").withoutExemplars().register(registry);
    errors = new ErrorMetrics(registry, node);
    for (int i = 0; i <= OTHER; i++) {
      duration[i] = latency.labelValues(METHOD_LABELS[i]);
      requestBytes[i] = in.labelValues(METHOD_LABELS[i]);
      responseBytes[i] = out.labelValues(METHOD_LABELS[i]);
    }
  }

  @Override
  public void completed(HttpMethod method, int status, long nanos, long requestBytes, long responseBytes) {
    int m = index(method);
    int s = status < MIN_STATUS || status >= MIN_STATUS + STATUSES ? 0 : status - MIN_STATUS;
    int slot = m * STATUSES + s;
    CounterDataPoint count = byMethodStatus.get(slot);
    if (count == null) { // first request of this method and status: the registry returns the same point to racers
      count = requests.labelValues(METHOD_LABELS[m], Integer.toString(s + MIN_STATUS));
      byMethodStatus.set(slot, count);
    }
    count.inc();
    duration[m].observe(nanos / 1e9);
    if (requestBytes > 0) {
      this.requestBytes[m].inc(requestBytes);
    }
    if (responseBytes > 0) {
      this.responseBytes[m].inc(responseBytes);
    }
  }

  @Override
  public void error(String code) {
    errors.record(code);
  }

  private static int index(HttpMethod method) {
    for (int i = 0; i < METHODS.length; i++) {
      if (METHODS[i] == method) { // Netty's decoder hands out these constants for the standard methods
        return i;
      }
    }
    for (int i = 0; i < METHODS.length; i++) {
      if (METHODS[i].equals(method)) {
        return i;
      }
    }
    return OTHER;
  }

  private static String[] labels() {
    String[] l = new String[METHODS.length + 1];
    for (int i = 0; i < METHODS.length; i++) {
      l[i] = METHODS[i].name();
    }
    l[OTHER] = "OTHER";
    return l;
  }
}
