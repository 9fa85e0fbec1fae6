package io.granary.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.granary.clustermap.ClusterJson;
import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.Node;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.hrw.PlacementKey;
import io.granary.it.support.Content;
import io.granary.it.support.Http;
import io.granary.it.support.Names;
import io.granary.it.support.TestCluster;
import io.granary.it.support.Resources;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Cluster membership against real processes: the map and health endpoints, a silent target going offline
 * within 30 s while keeping its HRW place (503 with Retry-After, never a wrong 404), a restarted target coming
 * back with the same id and its objects, maintenance taking a target out of placement, and metadata pushes
 * that are older or from another cluster being refused.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MembershipIT {
  private static final String BUCKET = "members";
  private static final String VICTIM = "t1";
  private static TestCluster cluster;
  private static final Map<String, byte[]> objects = new HashMap<>();

  @BeforeAll
  static void start() throws Exception {
    cluster = TestCluster.start("membership", 3);
    assertThat(post(cluster.endpoint() + "/v1/buckets/" + BUCKET, null).status()).isEqualTo(201);
    Random r = new Random(3);
    for (int i = 0; i < 60; i++) {
      String name = Names.random(r, i);
      byte[] data = Content.bytes(i, r.nextInt(200_000));
      objects.put(name, data);
      assertThat(Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(), BUCKET, name)))
          .PUT(HttpRequest.BodyPublishers.ofByteArray(data))).status()).isEqualTo(200);
    }
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(cluster);
  }

  private static Http.Reply post(String url, String json) throws Exception {
    return send("POST", url, json);
  }

  private static Http.Reply send(String method, String url, String json) throws Exception {
    return Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json")
        .method(method, json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json)));
  }

  private static Http.Reply signedSend(String method, String url, String json) throws Exception {
    return Http.send(Http.NO_FOLLOW, cluster.signed(HttpRequest.newBuilder(URI.create(url))
        .header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(json))));
  }

  private static List<String> ownedBy(ClusterMap map, String target) {
    List<String> out = new ArrayList<>();
    for (String n : objects.keySet()) {
      if (map.placement().owner(PlacementKey.digest(Bucket.local(BUCKET), n)).orElseThrow().id().equals(target)) {
        out.add(n);
      }
    }
    return out;
  }

  @Test
  @Order(1)
  void clusterMap_hasVersionUuidPrimaryProxiesAndTargets_andEveryNodeAnswersHealth() throws Exception {
    JsonNode map = ClusterJson.mapper().readTree(Http.get(cluster.endpoint() + "/v1/cluster/map").body());
    assertThat(map.path("version").asLong()).isGreaterThanOrEqualTo(4);
    assertThat(map.path("uuid").asText()).isNotEmpty();
    assertThat(map.path("primary").asText()).isEqualTo("p1");
    assertThat(map.path("proxies").has("p1")).isTrue();
    assertThat(map.path("targets").size()).isEqualTo(3);
    for (JsonNode t : map.path("targets")) {
      assertThat(t.path("state").asText()).isEqualTo("active");
    }
    List<String> urls = new ArrayList<>(List.of(cluster.endpoint()));
    cluster.targetIds().forEach(id -> urls.add(cluster.targetUrl(id)));
    for (String url : urls) {
      Http.Reply h = Http.get(url + "/v1/health");
      assertThat(h.status()).isEqualTo(200);
      assertThat(ClusterJson.mapper().readTree(h.body()).path("cluster").asText()).isEqualTo(map.path("uuid").asText());
    }
    // Every node has persisted the newest map it was sent.
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
      for (String id : cluster.targetIds()) {
        JsonNode saved = ClusterJson.mapper().readTree(Files.readAllBytes(
            cluster.mountpaths(id).get(0).resolve(".granary/cluster-metadata.json")));
        assertThat(saved.path("map").path("version").asLong()).isEqualTo(cluster.map().version());
      }
    });
  }

  @Test
  @Order(2)
  void silentTarget_isOfflineWithin30s_keepsItsPlace_andAnswers503NotWrong404() throws Exception {
    ClusterMap before = cluster.map();
    List<String> victims = ownedBy(before, VICTIM);
    assertThat(victims).isNotEmpty();
    cluster.local().kill(VICTIM);
    long killed = System.nanoTime();
    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250)).until(() ->
        cluster.map().targets().get(VICTIM).state() == NodeState.OFFLINE);
    assertThat(Duration.ofNanos(System.nanoTime() - killed)).isLessThan(Duration.ofSeconds(30));

    ClusterMap offline = cluster.map();
    for (String name : objects.keySet()) {
      Node owner = offline.placement().owner(PlacementKey.digest(Bucket.local(BUCKET), name)).orElseThrow();
      Node ownerBefore = before.placement().owner(PlacementKey.digest(Bucket.local(BUCKET), name)).orElseThrow();
      assertThat(owner.id()).as("HRW owner of %s must not change when a target goes offline", name)
          .isEqualTo(ownerBefore.id());
      Http.Reply r = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(), BUCKET, name))).GET());
      if (owner.id().equals(VICTIM)) {
        assertThat(r.status()).as(name).isEqualTo(503);
        assertThat(r.header("retry-after")).isPresent();
        assertThat(ClusterJson.mapper().readTree(r.body()).path("code").asText()).isEqualTo("TargetOffline");
      } else {
        assertThat(r.status()).as(name).isEqualTo(200);
        assertThat(r.body()).isEqualTo(objects.get(name));
      }
    }
    Http.Reply list = Http.get(cluster.endpoint() + "/v1/buckets/" + BUCKET);
    assertThat(list.status()).as("a listing missing a target's objects must not look complete").isEqualTo(503);
  }

  @Test
  @Order(3)
  void restartedTarget_rejoinsWithSameId_andServesItsObjects() throws Exception {
    cluster.local().restart(VICTIM);
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250)).ignoreExceptions().until(() ->
        cluster.map().targets().get(VICTIM).state() == NodeState.ACTIVE);
    assertThat(cluster.map().targets()).hasSize(3).containsKey(VICTIM);
    for (Map.Entry<String, byte[]> e : objects.entrySet()) {
      Http.Reply r = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(), BUCKET, e.getKey()))).GET());
      assertThat(r.status()).as(e.getKey()).isEqualTo(200);
      assertThat(r.body()).as(e.getKey()).isEqualTo(e.getValue());
    }
    JsonNode page = ClusterJson.mapper().readTree(Http.get(cluster.endpoint() + "/v1/buckets/" + BUCKET).body());
    assertThat(page.path("entries").size()).isEqualTo(objects.size());
  }

  @Test
  @Order(4)
  void maintenance_takesTargetOutOfPlacement_andActiveBringsItBack() throws Exception {
    String id = "t3";
    ClusterMap before = cluster.map();
    List<String> owned = ownedBy(before, id);
    assertThat(owned).isNotEmpty();

    Http.Reply r = send("PUT", cluster.endpoint() + "/v1/cluster/nodes/" + id, "{\"state\":\"maintenance\"}");
    assertThat(r.status()).as(r.bodyText()).isEqualTo(200);
    ClusterMap during = cluster.map();
    assertThat(during.version()).isGreaterThan(before.version());
    assertThat(during.targets().get(id).state()).isEqualTo(NodeState.MAINTENANCE);
    for (String name : owned) {
      Http.Reply redirect = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(), BUCKET, name)))
          .method("HEAD", HttpRequest.BodyPublishers.noBody()));
      assertThat(redirect.status()).isEqualTo(307);
      assertThat(redirect.header("location").orElseThrow()).doesNotStartWith(cluster.targetUrl(id));
    }
    assertThat(send("PUT", cluster.endpoint() + "/v1/cluster/nodes/" + id, "{\"state\":\"offline\"}").status())
        .as("operators cannot set offline").isEqualTo(409);

    assertThat(send("PUT", cluster.endpoint() + "/v1/cluster/nodes/" + id, "{\"state\":\"active\"}").status()).isEqualTo(200);
    for (String name : owned) {
      Http.Reply back = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(), BUCKET, name))).GET());
      assertThat(back.status()).as(name + ": " + back.bodyText()).isEqualTo(200);
      assertThat(back.body()).isEqualTo(objects.get(name));
    }
  }

  @Test
  @Order(5)
  void metasync_ignoresOlderVersions_andRefusesForeignClusters() throws Exception {
    String target = cluster.targetUrl("t2");
    JsonNode current = ClusterJson.mapper().readTree(cluster.getSigned(target + "/v1/cluster/map").body());
    long version = current.path("version").asLong();
    ObjectNode older = (ObjectNode) ClusterJson.mapper().readTree(Http.get(cluster.endpoint() + "/v1/cluster/map").body());
    older.put("version", 2);
    older.putObject("targets");
    JsonNode buckets = ClusterJson.mapper().readTree(
        "{\"version\":1,\"uuid\":\"" + current.path("uuid").asText() + "\",\"buckets\":{}}");
    ObjectNode push = ClusterJson.mapper().createObjectNode();
    push.set("map", older);
    push.set("buckets", buckets);

    assertThat(send("PUT", target + "/v1/metasync", push.toString()).status()).as("unsigned push").isEqualTo(403);
    Http.Reply stale = signedSend("PUT", target + "/v1/metasync", push.toString());
    assertThat(stale.status()).isEqualTo(200);
    JsonNode after = ClusterJson.mapper().readTree(cluster.getSigned(target + "/v1/cluster/map").body());
    // Not the pushed v2; a newer one may have come meanwhile (the previous test's rebalance settling).
    assertThat(after.path("version").asLong()).as("the stale push was ignored").isGreaterThanOrEqualTo(version);
    assertThat(after.path("targets").size()).isEqualTo(3);
    assertThat(cluster.getSigned(target + "/v1/buckets/" + BUCKET).status()).as("bucket still known").isEqualTo(200);

    ObjectNode foreign = older.deepCopy();
    foreign.put("uuid", "another-cluster");
    foreign.put("version", version + 100);
    ObjectNode foreignPush = ClusterJson.mapper().createObjectNode();
    foreignPush.set("map", foreign);
    foreignPush.set("buckets", ClusterJson.mapper().readTree("{\"version\":99,\"uuid\":\"another-cluster\",\"buckets\":{}}"));
    Http.Reply refused = signedSend("PUT", target + "/v1/metasync", foreignPush.toString());
    assertThat(refused.status()).isEqualTo(409);
    assertThat(ClusterJson.mapper().readTree(refused.body()).path("code").asText()).isEqualTo("ClusterMismatch");
    assertThat(ClusterJson.mapper().readTree(cluster.getSigned(target + "/v1/cluster/map").body()).path("uuid").asText())
        .isEqualTo(current.path("uuid").asText());
  }

  @Test
  @Order(6)
  void aNewTarget_joinsOutOfPlacement_untilItHoldsTheMap_andLeavesIfItFallsSilentMeanwhile() throws Exception {
    ClusterMap before = cluster.map();
    // A registration holding no map, from a "target" that will never answer (nothing listens on port 1).
    String reg = "{\"id\":\"t9\",\"role\":\"target\",\"url\":\"http://127.0.0.1:1\",\"weight\":0}";
    assertThat(send("POST", cluster.endpoint() + "/v1/cluster/join", reg).status()).as("unsigned").isEqualTo(403);
    Http.Reply joined = signedSend("POST", cluster.endpoint() + "/v1/cluster/join", reg);
    assertThat(joined.status()).as(joined.bodyText()).isEqualTo(200);

    ClusterMap joining = cluster.map();
    assertThat(joining.targets().get("t9").state()).isEqualTo(NodeState.JOINING);
    assertThat(joining.placementSignature()).as("no client is routed to it").isEqualTo(before.placementSignature());
    assertThat(joining.rebalance()).as("nothing moves").isEqualTo(before.rebalance());
    for (Map.Entry<String, byte[]> e : objects.entrySet()) {
      Http.Reply r = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(
          Names.url(cluster.endpoint(), BUCKET, e.getKey()))).GET());
      assertThat(r.status()).as(e.getKey()).isEqualTo(200);
      assertThat(r.body()).isEqualTo(e.getValue());
    }

    // It never answers health checks: it leaves the map (it held nothing) and may register again later.
    await().atMost(Duration.ofSeconds(40)).until(() -> !cluster.map().targets().containsKey("t9"));
    ClusterMap after = cluster.map();
    assertThat(after.retired()).doesNotContain("t9");
    assertThat(after.placementSignature()).isEqualTo(before.placementSignature());
  }
}
