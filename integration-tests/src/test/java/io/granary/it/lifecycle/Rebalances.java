package io.granary.it.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.ClusterJson;
import io.granary.clustermap.Rebalance;
import io.granary.it.support.Http;
import io.granary.it.support.TestCluster;
import java.time.Duration;

/** Following rebalances through the public job API, as users do. */
final class Rebalances {
  private Rebalances() {}

  /** The cluster's latest rebalance, from the map the proxy serves. */
  static Rebalance latest(TestCluster cluster) throws Exception {
    return cluster.map().rebalance();
  }

  /** {@code GET /v1/jobs/rb-N}. */
  static JsonNode status(TestCluster cluster, long id) throws Exception {
    Http.Reply r = Http.get(cluster.endpoint() + "/v1/jobs/rb-" + id);
    assertThat(r.status()).as(r.bodyText()).isEqualTo(200);
    return ClusterJson.mapper().readTree(r.body());
  }

  /** Waits (with the API's own wait) until rebalance {@code id} ends, at most {@code max}; returns its status. */
  static JsonNode awaitEnd(TestCluster cluster, long id, Duration max) throws Exception {
    long deadline = System.nanoTime() + max.toNanos();
    while (true) {
      Http.Reply r = Http.get(cluster.endpoint() + "/v1/jobs/rb-" + id + "?wait=20s");
      assertThat(r.status()).as(r.bodyText()).isEqualTo(200);
      JsonNode s = ClusterJson.mapper().readTree(r.body());
      if (!"running".equals(s.path("state").asText())) {
        return s;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("rebalance rb-" + id + " still running after " + max + ": " + s);
      }
    }
  }

  /** A node's status, {@code GET /v1/cluster/nodes/ID}. */
  static JsonNode node(TestCluster cluster, String id) throws Exception {
    Http.Reply r = Http.get(cluster.endpoint() + "/v1/cluster/nodes/" + id);
    assertThat(r.status()).as(r.bodyText()).isEqualTo(200);
    return ClusterJson.mapper().readTree(r.body());
  }
}
