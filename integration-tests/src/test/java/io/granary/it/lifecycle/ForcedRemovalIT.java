package io.granary.it.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.ClusterJson;
import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.Provider;
import io.granary.clustermap.hrw.PlacementKey;
import io.granary.it.cache.RemoteBuckets;
import io.granary.it.support.Content;
import io.granary.it.support.GranaryCli;
import io.granary.it.support.Http;
import io.granary.it.support.Names;
import io.granary.it.support.Resources;
import io.granary.it.support.TestCluster;
import io.granary.testkit.S3ProxyServer;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A target killed for good (kill -9, its disks written off) and removed by force, against real processes and an S3
 * backend (S3Proxy): the map drops it, the survivors rebalance, the remote bucket's objects it cached come back cold
 * from S3, local objects on the other targets all read; what it alone held of the local bucket is gone (404). Bad
 * requests (unknown node, a live one, without force, the last target) change nothing.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ForcedRemovalIT {
  private static final String LOCAL = "kept";
  private static final String REMOTE = "cold";
  private static final int REMOTE_OBJECTS = 60;
  private static final String DEAD = "t3";
  private static Path work;
  private static S3ProxyServer s3proxy;
  private static S3Client backend;
  private static TestCluster cluster;
  private static Dataset data;

  @BeforeAll
  static void start() throws Exception {
    work = Files.createTempDirectory("forced-removal");
    s3proxy = S3ProxyServer.start(work.resolve("s3proxy"));
    backend = RemoteBuckets.backendClient(s3proxy);
    backend.createBucket(b -> b.bucket(REMOTE));
    cluster = TestCluster.start("forced-removal", 3);
    assertThat(cluster.createBucket(LOCAL).status()).isEqualTo(201);
    data = new Dataset(300, 53);
    data.upload(cluster.endpoint(), LOCAL, 8);
    Http.Reply r = RemoteBuckets.register(cluster, "aws", REMOTE, RemoteBuckets.s3Props(s3proxy.endpoint(),
        s3proxy.writeCredentialsFile(work.resolve("credentials")), "1h", false));
    assertThat(r.status()).as(r.bodyText()).isEqualTo(201);
    for (int i = 0; i < REMOTE_OBJECTS; i++) {
      byte[] body = remote(i);
      backend.putObject(b -> b.bucket(REMOTE).key(remoteName(body.length)), RequestBody.fromBytes(body));
    }
    for (int i = 0; i < REMOTE_OBJECTS; i++) { // cached on their owners, t3 among them
      assertRemoteReads(i);
    }
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(backend, cluster, s3proxy);
  }

  @Test
  @Order(1)
  void badRequests_unknownNode404_liveNodeOrNoForce409_changeNothing() throws Exception {
    long version = cluster.map().version();
    assertThat(remove("t9", "?force=true").status()).isEqualTo(404);
    Http.Reply alive = remove("t1", "");
    assertThat(alive.status()).as(alive.bodyText()).isEqualTo(409);
    assertThat(alive.bodyText()).contains("NodeAlive", "decommission");
    Http.Reply forced = remove("t1", "?force=true");
    assertThat(forced.status()).as(forced.bodyText()).isEqualTo(409);
    assertThat(forced.bodyText()).contains("NodeAlive");
    assertThat(remove("p1", "?force=true").status()).isEqualTo(409);
    assertThat(remove("t1", "?force=yes").status()).isEqualTo(400);
    GranaryCli.Result cli = GranaryCli.run(Duration.ofSeconds(60), "cluster", "rm", "t1", "--force", "--endpoint",
        cluster.endpoint());
    assertThat(cli.exit()).as(cli.all()).isNotZero();
    assertThat(cli.all()).contains("409", "decommission");
    ClusterMap after = cluster.map();
    assertThat(after.version()).as("nothing changed").isEqualTo(version);
    assertThat(after.targets()).containsOnlyKeys("t1", "t2", "t3");
  }

  @Test
  @Order(2)
  void deadTarget_removedByForce_survivorsRebalance_remoteObjectsComeBackCold_localOnesElsewhereAllRead()
      throws Exception {
    ClusterMap before = cluster.map();
    assertThat(before.settled()).isTrue();
    cluster.local().kill(DEAD);
    await().atMost(Duration.ofSeconds(30)).until(() -> cluster.map().targets().get(DEAD).state() == NodeState.OFFLINE);
    Http.Reply noForce = remove(DEAD, "");
    assertThat(noForce.status()).as(noForce.bodyText()).isEqualTo(409);
    assertThat(noForce.bodyText()).contains("ForceRequired");
    assertThat(cluster.map().targets()).containsKey(DEAD);

    GranaryCli.Result cli = GranaryCli.run(Duration.ofSeconds(60), "cluster", "rm", DEAD, "--force", "--endpoint",
        cluster.endpoint());
    assertThat(cli.exit()).as(cli.all()).isZero();
    assertThat(cli.stdout()).contains(DEAD + " (offline) removed", "lost: the objects of local buckets [ais://"
        + LOCAL + "]", "s3://" + REMOTE);

    ClusterMap after = cluster.map();
    assertThat(after.targets()).containsOnlyKeys("t1", "t2");
    assertThat(after.retired()).contains(DEAD);
    JsonNode end = Rebalances.awaitEnd(cluster, after.rebalance().id(), Duration.ofMinutes(3));
    assertThat(end.path("state").asText()).as(end.toString()).isEqualTo("succeeded");
    assertThat(end.path("targets").has(DEAD)).isFalse();

    for (int i = 0; i < REMOTE_OBJECTS; i++) {
      assertRemoteReads(i);
    }
    List<String> lost = new ArrayList<>();
    for (int i = 0; i < data.size(); i++) {
      Http.Reply r = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(), LOCAL,
          data.name(i)))).GET());
      String heldBy = before.placement().owner(PlacementKey.digest(Bucket.local(LOCAL), data.name(i)))
          .orElseThrow().id();
      if (heldBy.equals(DEAD)) {
        assertThat(r.status()).as("only %s held %s", DEAD, data.name(i)).isEqualTo(404);
        lost.add(data.name(i));
      } else {
        assertThat(r.status()).as(data.name(i)).isEqualTo(200);
        assertThat(Dataset.crc(r.body())).as(data.name(i)).isEqualTo(data.crc(i));
      }
    }
    assertThat(lost).as("t3 held a share of the local bucket").isNotEmpty().hasSizeLessThan(data.size());
    Http.Reply join = Http.get(cluster.endpoint() + "/v1/cluster/nodes/" + DEAD);
    assertThat(join.status()).isEqualTo(200);
    assertThat(ClusterJson.mapper().readTree(join.body()).path("safe_to_remove").asBoolean()).isTrue();
  }

  @Test
  @Order(3)
  void lastTargetInPlacement_cannotBeRemoved() throws Exception {
    cluster.local().kill("t1");
    cluster.local().kill("t2");
    await().atMost(Duration.ofSeconds(30)).until(() -> cluster.map().targets().values().stream()
        .allMatch(n -> n.state() == NodeState.OFFLINE));
    Http.Reply first = remove("t2", "?force=true");
    assertThat(first.status()).as(first.bodyText()).isEqualTo(200);
    long version = cluster.map().version();
    Http.Reply last = remove("t1", "?force=true");
    assertThat(last.status()).as(last.bodyText()).isEqualTo(409);
    assertThat(last.bodyText()).contains("last target");
    assertThat(cluster.map().version()).isEqualTo(version);
    assertThat(cluster.map().targets()).containsOnlyKeys("t1");
  }

  private static Http.Reply remove(String id, String query) throws Exception {
    return Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(cluster.endpoint() + "/v1/cluster/nodes/"
        + id + query)).DELETE());
  }

  private static byte[] remote(int i) {
    return Content.bytes(7_000 + i, 1 + (i * 997) % 40_000);
  }

  private static String remoteName(int size) {
    return "shard-" + size;
  }

  private static void assertRemoteReads(int i) throws Exception {
    byte[] body = remote(i);
    Http.Reply r = RemoteBuckets.get(cluster, Provider.AWS.wireName(), REMOTE, remoteName(body.length), null);
    assertThat(r.status()).as(remoteName(body.length) + ": " + r.bodyText()).isEqualTo(200);
    assertThat(r.body()).isEqualTo(body);
  }
}
