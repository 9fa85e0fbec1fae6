package io.granary.it.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.ClusterJson;
import io.granary.clustermap.Rebalance;
import io.granary.it.support.Http;
import io.granary.it.support.Resources;
import io.granary.it.support.TestCluster;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A rebalance that fails, against real processes: a target joins with room for almost nothing (each mountpath
 * 256 KiB), so the senders' copies to it are refused with 507 and every walk ends failed. The primary retries by
 * itself (first after 1 s, at most 2 s apart here); an explicit abort ends the retries; once the receiver is back
 * with room, the retry completes, the map settles, and nothing is lost.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RebalanceRetryIT {
  private static final String BUCKET = "retry";
  private static TestCluster cluster;
  private static Dataset data;
  private static String small;

  @BeforeAll
  static void start() throws Exception {
    cluster = TestCluster.start("rebalance-retry", 3, List.of(), List.of("--health-interval", "1s",
        "--offline-after", "4s", "--rebalance-retry-delay", "1s", "--rebalance-retry-max-delay", "2s",
        "--rebalance-attempts", "1000"));
    assertThat(cluster.createBucket(BUCKET).status()).isEqualTo(201);
    data = new Dataset(300, 41);
    data.upload(cluster.endpoint(), BUCKET, 8);
    small = cluster.local().addTarget(List.of("--capacity", "256KiB"));
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(cluster);
  }

  @Test
  @Order(1)
  void failedRebalance_isRetriedByItself_butNotAfterAnExplicitAbort() throws Exception {
    // The join's rebalance fails (the new target is full), and the primary retries it as the next rebalance.
    await().atMost(Duration.ofMinutes(2)).until(() -> Rebalances.latest(cluster).attempt() >= 2);
    JsonNode pending = await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(100))
        .until(() -> Rebalances.status(cluster, Rebalances.latest(cluster).id()),
            s -> "failed".equals(s.path("state").asText()) && s.hasNonNull("next_attempt"));
    assertThat(pending.path("attempt").asInt()).as(pending.toString()).isGreaterThanOrEqualTo(2);
    assertThat(pending.path("last_error").asText()).as(pending.toString()).contains(small, "507");
    assertThat(pending.path("objects").path("failed").asLong()).isPositive();

    long id = Rebalance.idOf(pending.path("id").asText());
    Http.Reply abort = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(cluster.endpoint() + "/v1/jobs/rb-"
        + id)).DELETE());
    assertThat(abort.status()).as(abort.bodyText()).isEqualTo(200);
    JsonNode aborted = ClusterJson.mapper().readTree(abort.body());
    assertThat(aborted.path("state").asText()).isEqualTo("aborted");
    assertThat(aborted.has("next_attempt")).as("the scheduled retry went with the abort").isFalse();

    // The retry was due within 2 s of the failure; nothing may start after its time has passed, well past it.
    Instant due = Instant.parse(pending.path("next_attempt").asText());
    await().atMost(Duration.ofSeconds(30)).until(() -> Instant.now().isAfter(due.plusSeconds(3)));
    Rebalance latest = Rebalances.latest(cluster);
    assertThat(latest.id()).as("no retry after an abort").isEqualTo(id);
    assertThat(latest.state()).isEqualTo(Rebalance.State.ABORTED);
  }

  @Test
  @Order(2)
  void failedRebalance_completesByItselfOnceTheReceiverHasRoom_andNothingIsLost() throws Exception {
    Http.Reply started = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(cluster.endpoint() + "/v1/jobs"))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(
            "{\"kind\":\"rebalance\"}")));
    assertThat(started.status()).as(started.bodyText()).isEqualTo(201);
    long first = Rebalance.idOf(ClusterJson.mapper().readTree(started.body()).path("id").asText());
    await().atMost(Duration.ofMinutes(2)).until(() -> Rebalances.latest(cluster).id() > first
        && Rebalances.latest(cluster).attempt() >= 2);

    // Back with the file system's capacity: the next attempt finds room, and no one starts a rebalance by hand.
    cluster.local().kill(small);
    cluster.local().restartWith(small, "--capacity", "0");
    await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(200))
        .until(() -> cluster.map().settled());
    Rebalance done = Rebalances.latest(cluster);
    assertThat(done.id()).isGreaterThan(first);
    assertThat(done.attempt()).isGreaterThanOrEqualTo(2);
    JsonNode status = Rebalances.status(cluster, done.id());
    assertThat(status.path("state").asText()).as(status.toString()).isEqualTo("succeeded");
    assertThat(status.path("attempt").asInt()).isEqualTo(done.attempt());
    assertThat(status.path("last_error").asText()).as("why the previous attempt failed").contains("507");
    data.assertIntact(cluster, BUCKET); // not while the full target is in the map: its objects' reads answer 503
  }

}
