package io.granary.common.metrics;

import io.granary.clustermap.ClusterMap;
import io.granary.common.http.EdgeCounters;
import io.granary.common.http.HttpServer;
import io.granary.common.membership.ClusterMetadataHolder;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.Unit;
import java.util.function.Consumer;
import java.util.function.DoubleSupplier;
import java.util.function.ToDoubleFunction;

/**
 * The metrics of one node: its own {@link PrometheusRegistry} (never the global default one, since several nodes
 * share a JVM in tests), the request metrics the HTTP dispatcher records, and callback metrics that read the
 * node's existing counters at scrape time. Every metric carries the constant label {@code node}. Names follow the
 * Prometheus conventions: {@code granary_} prefix, base units, {@code _total} on counters; see docs/metrics.md.
 */
public final class NodeMetrics {
  private final String nodeId;
  private final Labels nodeLabel;
  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final RequestMetrics requests;

  public NodeMetrics(String nodeId) {
    this.nodeId = nodeId;
    this.nodeLabel = Labels.of("node", nodeId);
    this.requests = new RequestMetrics(registry, nodeLabel);
  }

  public String nodeId() {
    return nodeId;
  }

  public PrometheusRegistry registry() {
    return registry;
  }

  /** The listener to give the node's HTTP server. */
  public RequestMetrics requests() {
    return requests;
  }

  /** A gauge read from {@code value} at each scrape. {@code name} without the {@code granary_} prefix. */
  public void gauge(String name, String help, DoubleSupplier value) {
    GaugeWithCallback.builder().name("granary_" + name).help(help).constLabels(nodeLabel)
        .callback(cb -> cb.call(value.getAsDouble())).register(registry);
  }

  /** A gauge with labels, filled by {@code callback} at each scrape. */
  public void gauge(String name, String help, String[] labelNames, Consumer<GaugeWithCallback.Callback> callback) {
    GaugeWithCallback.builder().name("granary_" + name).help(help).constLabels(nodeLabel).labelNames(labelNames)
        .callback(callback).register(registry);
  }

  /**
   * A counter read from {@code value} (a monotonic count kept elsewhere) at each scrape. {@code name} without the
   * {@code granary_} prefix and without {@code _total}, which the exposition adds.
   */
  public void counter(String name, String help, DoubleSupplier value) {
    CounterWithCallback.builder().name("granary_" + name).help(help).constLabels(nodeLabel)
        .callback(cb -> cb.call(value.getAsDouble())).register(registry);
  }

  /** A counter with labels, filled by {@code callback} at each scrape from monotonic counts kept elsewhere. */
  public void counter(String name, String help, String[] labelNames,
      Consumer<CounterWithCallback.Callback> callback) {
    CounterWithCallback.builder().name("granary_" + name).help(help).constLabels(nodeLabel).labelNames(labelNames)
        .callback(callback).register(registry);
  }

  /**
   * A histogram of durations in seconds with classic buckets ({@code upperBounds}, seconds), recorded by the
   * caller; bind its data points once ({@code labelValues}) and keep them, so an observation allocates nothing.
   */
  public Histogram histogram(String name, String help, double[] upperBounds, String... labelNames) {
    return Histogram.builder().name("granary_" + name).help(help).unit(Unit.SECONDS).constLabels(nodeLabel)
        .labelNames(labelNames).classicOnly().classicUpperBounds(upperBounds).withoutExemplars().register(registry);
  }

  /**
   * Facts of the cluster map this node holds, each 0 before it has one: {@code granary_cluster_map_version}, and the
   * map's latest rebalance: {@code granary_cluster_rebalance_id}, {@code granary_cluster_rebalance_running} and
   * {@code granary_cluster_rebalance_settled} (every object known to be on its owner: no rebalance yet, or the
   * latest finished; see {@link ClusterMap#settled}). Every node holds the map, so every node exports them.
   */
  public void clusterMap(ClusterMetadataHolder holder) {
    gauge("cluster_map_version", "Version of the cluster map this node holds (0: none yet)",
        () -> map(holder, m -> m.version()));
    gauge("cluster_rebalance_id", "Id of the cluster's latest rebalance in the map this node holds (0: none yet)",
        () -> map(holder, m -> m.rebalance() == null ? 0 : m.rebalance().id()));
    gauge("cluster_rebalance_running", "1 while the cluster's latest rebalance runs, else 0",
        () -> map(holder, m -> m.rebalance() != null && m.rebalance().running() ? 1 : 0));
    gauge("cluster_rebalance_settled", "1 when every object is known to be on its owner (no rebalance yet, or the "
        + "latest finished); 0 while one runs or after an abort, when owners ask their peers before a 404",
        () -> map(holder, m -> m.settled() ? 1 : 0));
  }

  /**
   * The HTTP listener's own protection (docs/http-api.md, "Timeouts and the connection cap"):
   * {@code granary_http_connections_open}, {@code granary_http_connections_refused_total{how}} and
   * {@code granary_http_request_timeouts_total{phase}}. Counted, not logged per connection: an attack would make
   * each refusal a log line.
   */
  public void httpEdge(HttpServer server) {
    EdgeCounters c = server.edgeCounters();
    gauge("http_connections_open", "Client connections open on the HTTP listener, the cap's reserve included",
        server::openConnections);
    counter("http_connections_refused", "Connections refused at the connection cap: closed at accept (the reserve "
        + "was full too), or answered 503 (a request on the reserve not signed by a node of the cluster)",
        new String[] {"how"}, cb -> {
          cb.call(c.refusedClosed(), "closed");
          cb.call(c.refusedAnswered(), "answered");
        });
    counter("http_request_timeouts", "Requests cut off because their head was not complete within the head "
        + "timeout (phase=head) or their body brought no bytes for the body timeout (phase=body)",
        new String[] {"phase"}, cb -> {
          cb.call(c.headTimeouts(), "head");
          cb.call(c.bodyTimeouts(), "body");
        });
    counter("http_accept_failures", "Connections the listener could not accept (accept(2) failed: above all the "
        + "open-file limit reached); accepting pauses a second after each", c::acceptFailures);
  }

  private static double map(ClusterMetadataHolder holder, ToDoubleFunction<ClusterMap> fact) {
    return holder.snapshot().map(s -> fact.applyAsDouble(s.map())).orElse(0.0);
  }
}
