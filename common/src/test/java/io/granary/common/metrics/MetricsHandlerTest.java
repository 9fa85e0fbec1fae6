package io.granary.common.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.Node;
import io.granary.clustermap.NodeRole;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.Rebalance;
import io.granary.clustermap.bucket.BucketMetadata;
import io.granary.common.error.ObjectNotFoundException;
import io.granary.common.error.RouteNotFoundException;
import io.granary.common.http.HttpDispatcher;
import io.granary.common.http.HttpServer;
import io.granary.common.http.Router;
import io.granary.common.membership.ClusterMetadata;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.membership.MetadataFiles;
import io.granary.common.s3.S3Errors;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelOption;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpServerCodec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code GET /metrics} behind the real codec and dispatcher, with the node's request metrics as listener. */
class MetricsHandlerTest {
  private final NodeMetrics metrics = new NodeMetrics("n1");
  private EmbeddedChannel ch;

  @BeforeEach
  void setUp() {
    Router notFound = ex -> {
      if (ex.path().raw().startsWith("/s3/")) { // as the S3 front ends do: S3 XML errors
        ex.useErrorRenderer(S3Errors.RENDERER);
        throw new ObjectNotFoundException("b", "k");
      }
      throw new RouteNotFoundException(ex.path().raw());
    };
    ch = new EmbeddedChannel();
    ch.config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
    ch.pipeline()
        .addLast("http", new HttpServerCodec(HttpServer.MAX_INITIAL_LINE, HttpServer.MAX_HEADER_SIZE,
            HttpServer.MAX_CHUNK_SIZE))
        .addLast("dispatch", new HttpDispatcher(MetricsHandler.route(notFound, metrics), "n1", metrics.requests()));
  }

  @AfterEach
  void tearDown() {
    ch.finishAndReleaseAll();
  }

  private String exchange(String request) {
    ch.writeInbound(Unpooled.copiedBuffer(request, StandardCharsets.ISO_8859_1));
    ch.runPendingTasks();
    StringBuilder out = new StringBuilder();
    for (Object o; (o = ch.readOutbound()) != null; ) {
      ByteBuf b = (ByteBuf) o;
      out.append(b.toString(StandardCharsets.UTF_8));
      b.release();
    }
    return out.toString();
  }

  private String scrape() {
    String r = exchange("GET /metrics HTTP/1.1\r\nHost: n1\r\n\r\n");
    assertThat(r).startsWith("HTTP/1.1 200 OK").contains("content-type: text/plain; version=0.0.4");
    return r.substring(r.indexOf("\r\n\r\n") + 4);
  }

  @Test
  void scrape_registeredCounter_isInText() {
    metrics.counter("test_things", "Things counted by the test", () -> 7);
    assertThat(scrape())
        .contains("# TYPE granary_test_things_total counter")
        .contains("granary_test_things_total{node=\"n1\"} 7.0");
  }

  @Test
  void requests_areCountedByMethodAndStatus_once() {
    assertThat(exchange("GET /nope HTTP/1.1\r\nHost: n1\r\n\r\n")).startsWith("HTTP/1.1 404");
    assertThat(exchange("PUT /nope HTTP/1.1\r\nHost: n1\r\nContent-Length: 0\r\n\r\n")).startsWith("HTTP/1.1 404");
    String text = scrape(); // a scrape is counted only once its own answer is written
    assertThat(text)
        .contains("granary_requests_total{method=\"GET\",node=\"n1\",status=\"404\"} 1.0")
        .contains("granary_requests_total{method=\"PUT\",node=\"n1\",status=\"404\"} 1.0")
        .contains("granary_request_duration_seconds_count{method=\"GET\",node=\"n1\"} 1")
        .contains("# TYPE granary_response_body_bytes_total counter");
    assertThat(scrape()).contains("granary_requests_total{method=\"GET\",node=\"n1\",status=\"200\"} 1.0");
  }

  @Test
  void errors_areCountedByTheCodeInTheirBody_nativeOrS3() {
    assertThat(exchange("GET /nope HTTP/1.1\r\nHost: n1\r\n\r\n")).startsWith("HTTP/1.1 404")
        .contains("\"code\":\"NoSuchEndpoint\"");
    assertThat(exchange("GET /s3/b/k HTTP/1.1\r\nHost: n1\r\n\r\n")).startsWith("HTTP/1.1 404")
        .contains("<Code>NoSuchKey</Code>");
    assertThat(exchange("HEAD /s3/b/k HTTP/1.1\r\nHost: n1\r\n\r\n")).startsWith("HTTP/1.1 404");
    assertThat(scrape())
        .contains("# TYPE granary_errors_total counter")
        .contains("granary_errors_total{code=\"NoSuchEndpoint\",node=\"n1\"} 1.0")
        .contains("granary_errors_total{code=\"NoSuchKey\",node=\"n1\"} 2.0")
        .doesNotContain("code=\"ObjectNotFound\"");
  }

  @Test
  void errors_successfulScrape_countsNoError() {
    assertThat(scrape()).contains("granary_errors_total{code=\"Other\",node=\"n1\"} 0.0")
        .doesNotContain("code=\"NoSuchEndpoint\"");
  }

  @Test
  void metricsWithQuery_isLeftToTheRouter() {
    assertThat(exchange("GET /metrics?list-type=2 HTTP/1.1\r\nHost: n1\r\n\r\n")).startsWith("HTTP/1.1 404");
  }

  @Test
  void clusterMapVersion_isZeroWithoutAMap(@TempDir Path dir) throws Exception {
    metrics.clusterMap(new ClusterMetadataHolder("n1", new MetadataFiles(List.of(dir))));
    assertThat(scrape()).contains("granary_cluster_map_version{node=\"n1\"} 0.0")
        .contains("granary_cluster_rebalance_id{node=\"n1\"} 0.0")
        .contains("granary_cluster_rebalance_running{node=\"n1\"} 0.0")
        .contains("granary_cluster_rebalance_settled{node=\"n1\"} 0.0");
  }

  @Test
  void clusterRebalance_followsTheMapsLatestRebalance_throughRunningAbortedAndFinished(@TempDir Path dir)
      throws Exception {
    ClusterMetadataHolder holder = new ClusterMetadataHolder("n1", new MetadataFiles(List.of(dir)));
    metrics.clusterMap(holder);
    ClusterMap map = ClusterMap.bootstrap("c1", new Node("n1", NodeRole.PROXY, "http://127.0.0.1:9",
        NodeState.ACTIVE, 1), Instant.EPOCH);
    BucketMetadata buckets = BucketMetadata.empty("c1");
    holder.apply(new ClusterMetadata(map, buckets));
    assertThat(scrape()).as("no rebalance yet: settled")
        .contains("granary_cluster_map_version{node=\"n1\"} 1.0")
        .contains("granary_cluster_rebalance_id{node=\"n1\"} 0.0")
        .contains("granary_cluster_rebalance_running{node=\"n1\"} 0.0")
        .contains("granary_cluster_rebalance_settled{node=\"n1\"} 1.0");

    Rebalance first = Rebalance.next(null, Instant.EPOCH);
    map = map.withRebalance(first);
    holder.apply(new ClusterMetadata(map, buckets));
    assertThat(scrape())
        .contains("granary_cluster_rebalance_id{node=\"n1\"} 1.0")
        .contains("granary_cluster_rebalance_running{node=\"n1\"} 1.0")
        .contains("granary_cluster_rebalance_settled{node=\"n1\"} 0.0");

    map = map.withRebalance(first.ended(Rebalance.State.ABORTED, Instant.EPOCH));
    holder.apply(new ClusterMetadata(map, buckets));
    assertThat(scrape()).as("aborted: objects may still be on previous owners")
        .contains("granary_cluster_rebalance_running{node=\"n1\"} 0.0")
        .contains("granary_cluster_rebalance_settled{node=\"n1\"} 0.0");

    Rebalance second = Rebalance.next(first, Instant.EPOCH);
    map = map.withRebalance(second).withRebalance(second.ended(Rebalance.State.FINISHED, Instant.EPOCH));
    holder.apply(new ClusterMetadata(map, buckets));
    assertThat(scrape())
        .contains("granary_cluster_map_version{node=\"n1\"} 5.0")
        .contains("granary_cluster_rebalance_id{node=\"n1\"} 2.0")
        .contains("granary_cluster_rebalance_running{node=\"n1\"} 0.0")
        .contains("granary_cluster_rebalance_settled{node=\"n1\"} 1.0");
  }
}
