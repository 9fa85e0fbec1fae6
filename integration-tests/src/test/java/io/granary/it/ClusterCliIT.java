package io.granary.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.NodeState;
import io.granary.it.support.Content;
import io.granary.it.support.GranaryCli;
import io.granary.it.support.Http;
import io.granary.it.support.Resources;
import io.granary.it.support.TestCluster;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The cluster life-cycle commands as an operator runs them, each in its own JVM against a real 3-target cluster:
 * a rebalance started and followed by hand, a short maintenance that keeps the node's place, a weight change
 * that moves objects, a decommission waited for until the node left the map, and bad input refused with the
 * proxy's message. The steps run in order on one cluster, as they would in a maintenance window.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterCliIT {
  private static final String BUCKET = "cli-lifecycle";
  private static final Pattern REBALANCE_ID = Pattern.compile("rb-\\d+");
  private static final Map<String, byte[]> objects = new LinkedHashMap<>();
  private static TestCluster cluster;

  @BeforeAll
  static void start() throws Exception {
    cluster = TestCluster.start("cluster-cli", 3);
    assertThat(cluster.createBucket(BUCKET).status()).isEqualTo(201);
    for (int i = 0; i < 40; i++) {
      String name = "shards/s-" + i;
      byte[] data = Content.bytes(i, 10_000 + 997 * i);
      objects.put(name, data);
      assertThat(Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(objectUrl(name)))
          .PUT(HttpRequest.BodyPublishers.ofByteArray(data))).status()).isEqualTo(200);
    }
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(cluster);
  }

  private static String objectUrl(String name) {
    return cluster.endpoint() + "/v1/objects/" + BUCKET + "/" + name;
  }

  /** Runs {@code granary ARGS --endpoint PROXY}. */
  private static GranaryCli.Result granary(String... args) throws Exception {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--endpoint", cluster.endpoint()));
    return GranaryCli.run(Duration.ofSeconds(100), all.toArray(String[]::new));
  }

  private static long rebalanceId() throws Exception {
    ClusterMap map = cluster.map();
    return map.rebalance() == null ? 0 : map.rebalance().id();
  }

  private static String firstRebalanceId(String text) {
    Matcher m = REBALANCE_ID.matcher(text);
    assertThat(m.find()).as("a rebalance id in: %s", text).isTrue();
    return m.group();
  }

  @Test
  @Order(1)
  void rebalanceStart_wait_endsSucceeded_andShowPrintsIt() throws Exception {
    GranaryCli.Result start = granary("rebalance", "start", "--wait");
    assertThat(start.exit()).as(start.all()).isZero();
    String id = start.stdout().strip();
    assertThat(id).matches(REBALANCE_ID);
    assertThat(start.stderr()).contains("rebalance " + id + " succeeded");

    GranaryCli.Result show = granary("rebalance", "show");
    assertThat(show.exit()).as(show.all()).isZero();
    assertThat(show.stdout()).contains("rebalance " + id + ": succeeded").contains("objects: ")
        .containsPattern("(?m)^t1 +done").containsPattern("(?m)^t2 +done").containsPattern("(?m)^t3 +done");

    GranaryCli.Result jobs = granary("job", "show");
    assertThat(jobs.exit()).as(jobs.all()).isZero();
    assertThat(jobs.stdout()).containsPattern("(?m)^" + id + " +rebalance +succeeded");
  }

  @Test
  @Order(2)
  void maintenanceWithoutRebalance_suspendsT3_safeToStop_andActiveBringsItBack() throws Exception {
    long before = rebalanceId();
    GranaryCli.Result set = granary("cluster", "set-state", "t3", "maintenance", "--no-rebalance");
    assertThat(set.exit()).as(set.all()).isZero();
    assertThat(set.stdout()).contains("t3: suspended");
    assertThat(cluster.map().targets().get("t3").state()).isEqualTo(NodeState.SUSPENDED);
    assertThat(rebalanceId()).as("a suspended node keeps its place: nothing moves").isEqualTo(before);

    GranaryCli.Result node = granary("cluster", "node", "t3");
    assertThat(node.exit()).as(node.all()).isZero();
    assertThat(node.stdout()).contains("t3: target, suspended, in placement").contains("safe to stop: yes");

    GranaryCli.Result back = granary("cluster", "set-state", "t3", "active");
    assertThat(back.exit()).as(back.all()).isZero();
    assertThat(back.stdout()).contains("t3: active");
    assertThat(cluster.map().targets().get("t3").state()).isEqualTo(NodeState.ACTIVE);
  }

  @Test
  @Order(3)
  void setWeight_changesTheWeight_andStartsARebalance() throws Exception {
    long before = rebalanceId();
    GranaryCli.Result set = granary("cluster", "set-weight", "t2", "2");
    assertThat(set.exit()).as(set.all()).isZero();
    assertThat(set.stdout()).contains("t2: active, weight 2.0").contains("is running");
    ClusterMap map = cluster.map();
    assertThat(map.targets().get("t2").weight()).isEqualTo(2.0);
    assertThat(map.rebalance().id()).isGreaterThan(before);
    assertThat(firstRebalanceId(set.stdout())).isEqualTo(map.rebalance().jobId());

    GranaryCli.Result follow = granary("rebalance", "show", map.rebalance().jobId(), "--wait");
    assertThat(follow.exit()).as(follow.all()).isZero();
    assertThat(follow.stdout()).contains(": succeeded");
  }

  @Test
  @Order(4)
  void decommission_waitSafe_returnsOnceT1LeftTheMap_andEveryObjectIsStillThere() throws Exception {
    GranaryCli.Result set = granary("cluster", "set-state", "t1", "decommissioned");
    assertThat(set.exit()).as(set.all()).isZero();
    assertThat(set.stdout()).contains("t1: decommissioning").contains("granary cluster node t1 --wait-safe");

    GranaryCli.Result wait = granary("cluster", "node", "t1", "--wait-safe", "--timeout", "90s");
    assertThat(wait.exit()).as(wait.all()).isZero();
    assertThat(wait.stdout()).contains("safe to remove: yes");
    ClusterMap map = cluster.map();
    assertThat(map.targets()).doesNotContainKey("t1");
    assertThat(map.retired()).contains("t1");

    GranaryCli.Result show = granary("cluster", "show");
    assertThat(show.exit()).as(show.all()).isZero();
    assertThat(show.stdout()).contains("retired (decommissioned): t1").containsPattern("rebalance rb-\\d+: ");
    for (Map.Entry<String, byte[]> e : objects.entrySet()) {
      Http.Reply r = Http.get(objectUrl(e.getKey()));
      assertThat(r.status()).as(e.getKey()).isEqualTo(200);
      assertThat(r.body()).as(e.getKey()).isEqualTo(e.getValue());
    }
  }

  @Test
  @Order(5)
  void badInput_exitsNonZero_withTheProxysMessage() throws Exception {
    GranaryCli.Result unknown = granary("cluster", "node", "t9");
    assertThat(unknown.exit()).isNotZero();
    assertThat(unknown.stderr()).contains("no node 't9' in the cluster map").contains("404");

    assertThat(unknown.stderr()).contains("NodeNotFound").doesNotContain("NoSuchEndpoint");
    GranaryCli.Result unknownState = granary("cluster", "set-state", "t9", "maintenance");
    assertThat(unknownState.stderr().strip().lines()).as(unknownState.stderr()).hasSize(1);
    assertThat(unknownState.stderr()).contains("404 NodeNotFound: no node 't9' in the cluster map");

    GranaryCli.Result badState = granary("cluster", "set-state", "t2", "sideways");
    assertThat(badState.exit()).isNotZero();
    assertThat(badState.stderr()).contains("400").contains("unknown node state 'sideways'");
    assertThat(cluster.map().targets().get("t2").state()).isEqualTo(NodeState.ACTIVE);
  }

  @Test
  @Order(6)
  void endpointsAndBucketErrors_areOneLineSaying_whatToDo() throws Exception {
    for (String bad : List.of("foo bar", "127.0.0.1:51080", "ftp://h/")) {
      GranaryCli.Result r = GranaryCli.run(Duration.ofSeconds(60), "cluster", "show", "--endpoint", bad);
      assertThat(r.exit()).as(bad).isEqualTo(2);
      assertThat(r.stderr().strip().lines()).as(r.stderr()).hasSize(1);
      assertThat(r.stderr()).contains("is not a proxy URL: give http://HOST:PORT").doesNotContain("Illegal character");
    }
    String https = cluster.endpoint().replace("http://", "https://");
    GranaryCli.Result tls = GranaryCli.run(Duration.ofSeconds(60), "cluster", "show", "--endpoint", https);
    assertThat(tls.exit()).isEqualTo(1);
    assertThat(tls.stderr()).contains("cannot speak TLS with " + https);
    assertThat(tls.stderr().strip().lines()).hasSize(1);

    GranaryCli.Result ls = granary("bucket", "ls"); // --endpoint, as its sibling commands take it
    assertThat(ls.exit()).as(ls.all()).isZero();
    assertThat(ls.stdout()).contains(BUCKET);
    GranaryCli.Result rm = granary("bucket", "rm", BUCKET);
    assertThat(rm.exit()).isEqualTo(1);
    assertThat(rm.stderr().strip().lines()).as(rm.stderr()).hasSize(1);
    assertThat(rm.stderr()).contains(BUCKET + " is not empty: delete its objects first, or add --force to remove it")
        .doesNotContain("?force=true");
    assertThat(Http.get(cluster.endpoint() + "/v1/buckets/" + BUCKET).status()).as("still there").isEqualTo(200);
  }
}
