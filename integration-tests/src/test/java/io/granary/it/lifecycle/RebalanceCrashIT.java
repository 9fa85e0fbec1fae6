package io.granary.it.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.NodeState;
import io.granary.it.support.Resources;
import io.granary.it.support.TestCluster;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * kill -9 in the middle of a rebalance, against real processes: first of a target sending objects, then of the
 * target receiving them. Sending is capped at 1 MiB/s per target so the move lasts long enough to be cut. After a
 * restart the rebalance completes, every object reads back byte-exact, and each lives only on its HRW owner and
 * mountpath: nothing lost, torn or duplicated.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RebalanceCrashIT {
  private static final String BUCKET = "crash";
  private static TestCluster cluster;
  private static Dataset data;

  @BeforeAll
  static void start() throws Exception {
    cluster = TestCluster.start("rebalance-crash", 3, List.of(),
        List.of("--health-interval", "1s", "--offline-after", "4s"), false,
        List.of("--rebalance-bandwidth", "1MiB", "--rebalance-streams", "2"));
    assertThat(cluster.createBucket(BUCKET).status()).isEqualTo(201);
    data = new Dataset(1500, 29);
    data.upload(cluster.endpoint(), BUCKET, 8);
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(cluster);
  }

  @Test
  @Order(1)
  void senderKilledMidRebalance_resumesAfterRestart_andNothingIsLostOrDuplicated() throws Exception {
    long before = Rebalances.latest(cluster).id();
    cluster.local().addTarget(List.of());
    long id = awaitNewRebalance(before);
    String sender = "t1";
    JsonNode cut = await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
        .until(() -> Rebalances.status(cluster, id).path("targets").path(sender),
            t -> t.path("sent").asLong() > 0 && "running".equals(t.path("state").asText()));
    cluster.local().kill(sender);
    cluster.local().restart(sender);

    JsonNode end = Rebalances.awaitEnd(cluster, id, Duration.ofMinutes(3));
    assertThat(end.path("state").asText()).as(end.toString()).isEqualTo("succeeded");
    // The restarted target took up the same rebalance (no new one started) and dealt with all it found left: copies
    // it had sent before the kill but not yet removed were answered "not needed" by their owners, then removed.
    assertThat(end.path("id").asText()).isEqualTo("rb-" + id);
    JsonNode resumed = end.path("targets").path(sender);
    assertThat(resumed.path("sent").asLong() + resumed.path("kept").asLong()).as(resumed.toString())
        .isEqualTo(resumed.path("to_move").asLong());
    assertThat(resumed.path("to_move").asLong()).isLessThanOrEqualTo(cut.path("to_move").asLong());
    data.assertIntact(cluster, BUCKET);
  }

  @Test
  @Order(2)
  void receiverKilledMidRebalance_sendersWaitForIt_andTheRebalanceCompletes() throws Exception {
    long before = Rebalances.latest(cluster).id();
    String receiver = cluster.local().addTarget(List.of());
    long id = awaitNewRebalance(before);
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
        .until(() -> Rebalances.status(cluster, id).path("targets").path(receiver).path("received").asLong() > 0);
    cluster.local().kill(receiver);
    await().atMost(Duration.ofSeconds(30)).until(() ->
        cluster.map().targets().get(receiver).state() == NodeState.OFFLINE);
    assertThat(Rebalances.status(cluster, id).path("state").asText()).as("waits for the receiver")
        .isEqualTo("running");
    cluster.local().restart(receiver);

    JsonNode end = Rebalances.awaitEnd(cluster, id, Duration.ofMinutes(3));
    assertThat(end.path("state").asText()).as(end.toString()).isEqualTo("succeeded");
    data.assertIntact(cluster, BUCKET);
  }


  private static long awaitNewRebalance(long before) {
    await().atMost(Duration.ofSeconds(30)).until(() -> Rebalances.latest(cluster).id() > before);
    try {
      return Rebalances.latest(cluster).id();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
