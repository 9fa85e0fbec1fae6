package io.granary.it.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.ClusterJson;
import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.Node;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.Rebalance;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.hrw.PlacementKey;
import io.granary.it.cache.RemoteBuckets;
import io.granary.it.support.Content;
import io.granary.it.support.Http;
import io.granary.it.support.Resources;
import io.granary.it.support.TestCluster;
import io.granary.testkit.S3ProxyServer;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A cluster changing shape under load, against real processes: 3 targets with 10,000 objects of 0 to 1 MiB in a
 * local bucket and cached copies of a remote (S3Proxy) bucket; readers GET every object in a loop checking every
 * byte and a writer PUTs new ones while (1) a fourth target joins and (2) one of the four is decommissioned. No read
 * may fail, every acknowledged write must read back, and at the end every object lives only on its HRW owner and
 * mountpath, and a paged listing names each object once.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RebalanceIT {
  private static final String BUCKET = "train";
  private static final String REMOTE = "cached-src";
  private static final int OBJECTS = 10_000;
  private static final int REMOTE_OBJECTS = 150;
  private static final Duration MAX_REBALANCE = Duration.ofMinutes(4);

  private static S3ProxyServer s3proxy;
  private static S3Client backend;
  private static TestCluster cluster;
  private static Dataset data;
  private static final Set<String> extraNames = new HashSet<>(); // acknowledged writes made during the tests

  @BeforeAll
  static void start() throws Exception {
    Path work = Files.createTempDirectory("rebalance-it");
    s3proxy = S3ProxyServer.start(work.resolve("s3proxy"));
    backend = RemoteBuckets.backendClient(s3proxy);
    backend.createBucket(b -> b.bucket(REMOTE));
    for (int i = 0; i < REMOTE_OBJECTS; i++) {
      int k = i;
      backend.putObject(b -> b.bucket(REMOTE).key("r/" + k), RequestBody.fromBytes(Content.bytes(900 + k, 20_000 + k)));
    }
    cluster = TestCluster.start("rebalance", 3);
    assertThat(cluster.createBucket(BUCKET).status()).isEqualTo(201);
    Http.Reply reg = RemoteBuckets.register(cluster, "aws", REMOTE, RemoteBuckets.s3Props(s3proxy.endpoint(),
        s3proxy.writeCredentialsFile(work.resolve("credentials")), "never", false));
    assertThat(reg.status()).as(reg.bodyText()).isEqualTo(201);
    data = new Dataset(OBJECTS, 17);
    data.upload(cluster.endpoint(), BUCKET, 8);
    for (int i = 0; i < REMOTE_OBJECTS; i++) { // cache every remote object
      assertThat(RemoteBuckets.get(cluster, "aws", REMOTE, "r/" + i, null).status()).isEqualTo(200);
    }
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(backend, cluster, s3proxy);
  }

  @Test
  @Order(1)
  void addingATarget_underReadAndWriteLoad_movesAQuarter_andNoReadFails() throws Exception {
    ClusterMap before = cluster.map();
    ClusterLoad load = new ClusterLoad(cluster.endpoint(), BUCKET, data).start(2, true, "new-during-add/");
    long readsBefore = awaitLoadRunning(load);

    // The new target warms up as in production (the cluster's targets skip it): it rehearses its join first, on
    // throwaway targets under its first mountpath, while the load runs
    String added = cluster.local().addTarget(List.of("--warm-up=true"));
    long id = awaitRebalanceAfter(before);
    JsonNode end = Rebalances.awaitEnd(cluster, id, MAX_REBALANCE);
    awaitEveryObjectRead(load); // each object read once more after the move
    load.close();
    extraNames.addAll(load.written().keySet()); // first, so that a failure here does not fail the next test too

    assertThat(end.path("state").asText()).as(end.toString()).isEqualTo("succeeded");
    assertThat(load.failures()).as("failed reads during the move").isEmpty();
    assertThat(load.failedReads()).isZero();
    assertThat(load.writeFailures()).as("failed writes during the move").isEmpty();
    assertThat(load.reads()).isGreaterThan(readsBefore);
    assertThat(load.checkWritten()).as("acknowledged writes that do not read back").isEmpty();

    // About a quarter moved, all of it to the new target: per HRW, and as the job counted.
    ClusterMap after = cluster.map();
    int toNew = 0;
    for (String n : data.names()) {
      Node was = before.placement().owner(PlacementKey.digest(Bucket.local(BUCKET), n)).orElseThrow();
      Node is = after.placement().owner(PlacementKey.digest(Bucket.local(BUCKET), n)).orElseThrow();
      if (!was.id().equals(is.id())) {
        assertThat(is.id()).as("objects move only to the new target").isEqualTo(added);
        toNew++;
      }
    }
    assertThat(toNew / (double) OBJECTS).as("moved fraction").isBetween(0.25 * 0.8, 0.25 * 1.2);
    long moved = end.path("objects").path("moved").asLong();
    assertThat(moved).as("the job moved what changed owner (plus writes that landed on an old owner)")
        .isBetween((long) toNew, (long) toNew + load.written().size() + REMOTE_OBJECTS);
    // Copies that arrive before the new target has started its own part are not in its per-rebalance count.
    assertThat(end.path("targets").path(added).path("received").asLong()).as("what the new target received")
        .isBetween(moved - 10, moved);
    assertEverythingOnItsOwnerOnly(after);
    assertListingNamesEachOnce();
    assertThat(Files.readString(cluster.dir().resolve("logs").resolve(added + ".log")))
        .as("the new target's log").contains("node=" + added + " join rehearsed: ")
        .doesNotContain("join rehearsal failed");
    assertThat(cluster.dir().resolve(added).resolve("mp1/.granary/rehearsal")).as("the rehearsal's scratch")
        .doesNotExist();
  }

  @Test
  @Order(2)
  void decommissioningATarget_underLoad_drainsIt_andItLeavesTheMap() throws Exception {
    ClusterMap before = cluster.map();
    String leaving = "t2";
    ClusterLoad load = new ClusterLoad(cluster.endpoint(), BUCKET, data).start(2, true, "new-during-decommission/");
    awaitLoadRunning(load);

    Http.Reply r = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(cluster.endpoint()
        + "/v1/cluster/nodes/" + leaving)).PUT(HttpRequest.BodyPublishers.ofString("{\"state\":\"decommissioned\"}")));
    assertThat(r.status()).as(r.bodyText()).isEqualTo(200);
    ClusterMap during = ClusterJson.mapper().readValue(r.body(), ClusterMap.class);
    assertThat(during.targets().get(leaving).state()).isEqualTo(NodeState.DECOMMISSIONING);
    long id = during.rebalance().id();
    JsonNode end = Rebalances.awaitEnd(cluster, id, MAX_REBALANCE);
    await().atMost(Duration.ofSeconds(30)).until(() -> Rebalances.node(cluster, leaving).path("safe_to_remove")
        .asBoolean());
    awaitEveryObjectRead(load);
    load.close();
    extraNames.addAll(load.written().keySet());

    assertThat(end.path("state").asText()).as(end.toString()).isEqualTo("succeeded");
    assertThat(load.failures()).as("failed reads while the target drained").isEmpty();
    assertThat(load.writeFailures()).as("failed writes while the target drained").isEmpty();
    assertThat(load.checkWritten()).as("acknowledged writes that do not read back").isEmpty();
    ClusterMap after = cluster.map();
    assertThat(after.targets()).doesNotContainKey(leaving);
    assertThat(after.retired()).contains(leaving);
    assertThat(OnDisk.holdsAnyObject(cluster, leaving)).as("the decommissioned target's mountpaths").isFalse();
    long held = 0;
    for (String n : data.names()) {
      held += before.placement().owner(PlacementKey.digest(Bucket.local(BUCKET), n)).orElseThrow().id()
          .equals(leaving) ? 1 : 0;
    }
    long received = 0; // the leaving target left the job's status with the map: count what the others received
    for (JsonNode t : end.path("targets")) {
      received += t.path("received").asLong();
    }
    assertThat(received).isGreaterThanOrEqualTo(held);
    assertEverythingOnItsOwnerOnly(after);
    assertListingNamesEachOnce();
    // The process stops by itself once it learns it left the map.
    await().atMost(Duration.ofSeconds(40)).until(() -> !cluster.local().process(leaving).isAlive());
    assertThat(cluster.local().process(leaving).exitValue()).isZero();
  }

  /** Every object of both buckets is on its owner's HRW mountpath, and nowhere else. */
  private static void assertEverythingOnItsOwnerOnly(ClusterMap map) throws Exception {
    List<String> local = new ArrayList<>(data.names());
    local.addAll(extraNames);
    Bucket b = Bucket.local(BUCKET);
    OnDisk.assertExactly(OnDisk.files(cluster, cluster.targetIds(), b),
        OnDisk.expected(cluster, map, b, bucketId(BUCKET), local));
    List<String> remote = new ArrayList<>();
    Bucket rb = new Bucket(io.granary.clustermap.bucket.Provider.AWS, REMOTE);
    for (int i = 0; i < REMOTE_OBJECTS; i++) {
      remote.add("r/" + i);
    }
    OnDisk.assertExactly(OnDisk.files(cluster, cluster.targetIds(), rb),
        OnDisk.expected(cluster, map, rb, bucketId(REMOTE), remote));
    for (int i = 0; i < REMOTE_OBJECTS; i += 10) {
      Http.Reply r = RemoteBuckets.get(cluster, "aws", REMOTE, "r/" + i, null);
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.body()).isEqualTo(Content.bytes(900 + i, 20_000 + i));
    }
  }

  /** A listing paged 1000 at a time names every object exactly once. */
  private static void assertListingNamesEachOnce() throws Exception {
    List<String> listed = new ArrayList<>();
    String token = null;
    do {
      String url = cluster.endpoint() + "/v1/buckets/" + BUCKET + "?limit=1000"
          + (token == null ? "" : "&token=" + URLEncoder.encode(token, StandardCharsets.UTF_8));
      JsonNode page = ClusterJson.mapper().readTree(Http.get(url).body());
      page.path("entries").forEach(e -> listed.add(e.path("name").asText()));
      token = page.hasNonNull("token") ? page.get("token").asText() : null;
    } while (token != null);
    Set<String> expected = new HashSet<>(data.names());
    expected.addAll(extraNames);
    assertThat(listed).hasSize(expected.size());
    assertThat(new HashSet<>(listed)).isEqualTo(expected);
  }

  private static String bucketId(String name) throws Exception {
    return OnDisk.bucketId(cluster, name);
  }

  /**
   * Waits until readers and writer are under way (a whole pass first would add half a minute per test and check
   * nothing the reads after the move do not: every object is read once more after it).
   */
  private static long awaitLoadRunning(ClusterLoad load) {
    await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(100))
        .until(() -> load.reads() >= 200 && !load.written().isEmpty());
    return load.reads();
  }

  /** Waits until the readers have read every object of the dataset since now. */
  private static void awaitEveryObjectRead(ClusterLoad load) {
    long[] mark = load.mark();
    await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(200))
        .until(() -> load.everyObjectReadSince(mark));
  }

  /** The rebalance the map started after {@code before} (the one that placement change asked for). */
  private static long awaitRebalanceAfter(ClusterMap before) throws Exception {
    long prev = before.rebalance() == null ? 0 : before.rebalance().id();
    await().atMost(Duration.ofSeconds(30)).until(() -> {
      Rebalance r = cluster.map().rebalance();
      return r != null && r.id() > prev;
    });
    return cluster.map().rebalance().id();
  }
}
