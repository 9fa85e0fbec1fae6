package io.granary.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.it.support.Http;
import io.granary.it.support.Names;
import io.granary.it.support.Resources;
import io.granary.it.support.TestCluster;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Scrapes {@code /metrics} of a running cluster's proxy and targets (without credentials or a cluster signature),
 * PUTs and GETs objects through the proxy, and checks that the request counters moved by as much.
 */
class MetricsIT {
  private static final String BUCKET = "metrics-it";
  private static final int OBJECTS = 6;

  private static TestCluster cluster;

  @BeforeAll
  static void start() throws Exception {
    cluster = TestCluster.start("metrics", 2);
    Http.Reply r = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(cluster.endpoint() + "/v1/buckets/"
        + BUCKET)).POST(HttpRequest.BodyPublishers.noBody()));
    assertThat(r.status()).isEqualTo(201);
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(cluster);
  }

  private static String scrape(String baseUrl) throws Exception {
    Http.Reply r = Http.get(baseUrl + "/metrics");
    assertThat(r.status()).as(r.bodyText()).isEqualTo(200);
    assertThat(r.header("content-type")).hasValueSatisfying(v -> assertThat(v).startsWith("text/plain"));
    return r.bodyText();
  }

  /** Sum of {@code granary_requests_total} over nodes for {@code method} and {@code status}. */
  private static double requests(String text, String method, int status) {
    Pattern p = Pattern.compile("^granary_requests_total\\{method=\"" + method + "\",node=\"[^\"]*\",status=\""
        + status + "\"} (\\S+)$", Pattern.MULTILINE);
    double sum = 0;
    for (Matcher m = p.matcher(text); m.find(); ) {
      sum += Double.parseDouble(m.group(1));
    }
    return sum;
  }

  private static String scrapeTargets() throws Exception {
    StringBuilder all = new StringBuilder();
    for (String id : cluster.targetIds()) {
      all.append(scrape(cluster.targetUrl(id)));
    }
    return all.toString();
  }

  @Test
  void putAndGet_throughProxy_moveRequestCounters_onProxyAndTargets() throws Exception {
    String proxyBefore = scrape(cluster.endpoint());
    String targetsBefore = scrapeTargets();
    assertThat(proxyBefore).containsPattern("(?m)^granary_cluster_map_version\\{node=\"[^\"]+\"} [1-9]");
    assertThat(targetsBefore).containsPattern("(?m)^granary_cluster_map_version\\{node=\"[^\"]+\"} [1-9]")
        .contains("# TYPE granary_cold_get_fetches_total counter")
        .contains("granary_mountpath_capacity_bytes{");

    byte[] body = "hello metrics".getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i < OBJECTS; i++) {
      String url = Names.url(cluster.endpoint(), BUCKET, "obj-" + i);
      Http.Reply put = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(url))
          .PUT(HttpRequest.BodyPublishers.ofByteArray(body)));
      assertThat(put.status()).as(put.bodyText()).isEqualTo(200);
      Http.Reply get = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(url)).GET());
      assertThat(get.status()).isEqualTo(200);
    }

    String proxyAfter = scrape(cluster.endpoint());
    String targetsAfter = scrapeTargets();
    // The proxy redirects each object request (307); the targets serve them (200).
    assertThat(requests(proxyAfter, "PUT", 307) - requests(proxyBefore, "PUT", 307)).isEqualTo(OBJECTS);
    assertThat(requests(proxyAfter, "GET", 307) - requests(proxyBefore, "GET", 307)).isEqualTo(OBJECTS);
    // At least: targets also answer the primary's health checks (GET) and metadata pushes (PUT), and count the
    // first scrape of each (a scrape is counted once its answer is written).
    assertThat(requests(targetsAfter, "PUT", 200) - requests(targetsBefore, "PUT", 200))
        .isGreaterThanOrEqualTo(OBJECTS);
    assertThat(requests(targetsAfter, "GET", 200) - requests(targetsBefore, "GET", 200))
        .isGreaterThanOrEqualTo(OBJECTS + cluster.targetIds().size());
    assertThat(targetsAfter).containsPattern("(?m)^granary_request_body_bytes_total\\{method=\"PUT\",node=\"[^\"]+\"} "
        + "[1-9]");
    assertThat(proxyAfter).containsPattern("(?m)^granary_request_duration_seconds_count\\{method=\"PUT\",node=\""
        + "[^\"]+\"} [1-9]");
  }
}
