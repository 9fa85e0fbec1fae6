package io.granary.it.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.ClusterJson;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.Provider;
import io.granary.clustermap.hrw.PlacementKey;
import io.granary.it.support.Content;
import io.granary.it.support.Http;
import io.granary.it.support.Resources;
import io.granary.it.support.TestCluster;
import io.granary.testkit.FaultProxy;
import io.granary.testkit.S3ProxyServer;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A prefetch job survives a target killed with SIGKILL in the middle of it: the job ends (never hangs) as failed,
 * naming the lost target, while the other target finishes its share; once the target is back, a retry fetches
 * only what is missing and the bucket is fully cached. Real processes, a real S3 server (S3Proxy) behind a
 * fault proxy that slows every backend GET so the job is still running when the target dies.
 */
class PrefetchFaultIT {
  private static final String BUCKET = "prefetch-fault";
  private static final int OBJECTS = 16;
  private static S3ProxyServer s3proxy;
  private static FaultProxy faults;
  private static TestCluster cluster;
  private static S3Client backend;

  @BeforeAll
  static void start() throws Exception {
    Path work = Files.createTempDirectory("prefetch-fault");
    s3proxy = S3ProxyServer.start(work.resolve("s3proxy"));
    faults = FaultProxy.start(s3proxy.endpoint());
    backend = RemoteBuckets.backendClient(s3proxy);
    backend.createBucket(b -> b.bucket(BUCKET));
    for (int i = 0; i < OBJECTS; i++) {
      String key = name(i);
      backend.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromBytes(Content.bytes(300 + i, 20_000 + i)));
    }
    cluster = TestCluster.start("prefetch-fault", 2, List.of(), List.of("--health-interval", "1s",
        "--offline-after", "3s"));
    Path creds = s3proxy.writeCredentialsFile(work.resolve("credentials"));
    Http.Reply r = RemoteBuckets.register(cluster, "aws", BUCKET, RemoteBuckets.s3Props(faults.endpoint(), creds,
        "never", false));
    assertThat(r.status()).as(r.bodyText()).isEqualTo(201);
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(backend, cluster, faults, s3proxy);
  }

  private static String name(int i) {
    return String.format("epoch/shard-%03d.tar", i);
  }

  private static JsonNode post(String path, String json) throws Exception {
    Http.Reply r = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(cluster.endpoint() + path))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)));
    assertThat(r.status()).as(r.bodyText()).isEqualTo(201);
    return ClusterJson.mapper().readTree(r.body());
  }

  /** The job's status once it is no longer running; bounded, so a hung job fails the test instead of the build. */
  private static JsonNode awaitEnd(String id) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (System.nanoTime() < deadline) {
      Http.Reply r = Http.get(cluster.endpoint() + "/v1/jobs/" + id + "?wait=5s");
      assertThat(r.status()).as(r.bodyText()).isEqualTo(200);
      JsonNode s = ClusterJson.mapper().readTree(r.body());
      if (!s.path("state").asText().equals("running")) {
        return s;
      }
    }
    throw new AssertionError("job " + id + " still running after 60 s");
  }

  private static Set<String> cached() throws Exception {
    Set<String> names = new HashSet<>();
    JsonNode page = ClusterJson.mapper().readTree(Http.get(cluster.endpoint() + "/v1/buckets/" + BUCKET
        + "?provider=aws&cached=true&prefix=epoch/").body());
    page.path("entries").forEach(e -> names.add(e.path("name").asText()));
    return names;
  }

  @Test
  void targetKilledMidJob_failsTheJobNamingIt_theOtherFinishes_andARetryCompletesTheBucket() throws Exception {
    String victim = cluster.targetIds().get(1);
    String survivor = cluster.targetIds().get(0);
    List<String> survivorOwns = new ArrayList<>();
    for (int i = 0; i < OBJECTS; i++) {
      if (cluster.map().placement().owner(PlacementKey.digest(new Bucket(Provider.AWS, BUCKET), name(i)))
          .orElseThrow().id().equals(survivor)) {
        survivorOwns.add(name(i));
      }
    }
    assertThat(survivorOwns).as("both targets own some objects").isNotEmpty().hasSizeLessThan(OBJECTS);

    Predicate<FaultProxy.Recorded> objectGets = r -> r.method().equals("GET")
        && r.pathAndQuery().startsWith("/" + BUCKET + "/epoch/");
    // 400 ms per backend GET and one fill at a time per target: each target's share takes seconds.
    faults.inject(objectGets, new FaultProxy.Fault.Stall(Duration.ofMillis(400), 0), -1);
    String id;
    try {
      id = post("/v1/jobs", "{\"kind\":\"prefetch\",\"bucket\":\"s3://" + BUCKET
          + "\",\"prefix\":\"epoch/\",\"concurrency\":1}").path("id").asText();
      // Kill the victim once it is fetching its share: a GET of one of its objects reached the remote.
      Set<String> victimPaths = new HashSet<>();
      for (int i = 0; i < OBJECTS; i++) {
        if (!survivorOwns.contains(name(i))) {
          victimPaths.add("/" + BUCKET + "/" + name(i));
        }
      }
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20))
          .until(() -> faults.count(r -> r.method().equals("GET")
              && victimPaths.contains(r.pathAndQuery().split("\\?", 2)[0])) > 0);
      cluster.local().kill(victim);

      JsonNode s = awaitEnd(id);
      assertThat(s.path("state").asText()).isEqualTo("failed");
      assertThat(s.path("error").asText()).contains(victim);
      assertThat(s.path("targets").path(victim).path("state").asText()).isEqualTo("lost");
      assertThat(s.path("targets").path(survivor).path("state").asText()).isEqualTo("succeeded");
      assertThat(s.path("targets").path(survivor).path("done").asLong()).isEqualTo(survivorOwns.size());
    } finally {
      faults.clearFaults();
    }
    // The survivor's share is cached: reading it costs no backend GET (a listing needs every target, so read).
    long getsAfterJob = faults.count(objectGets);
    for (String n : survivorOwns) {
      assertThat(RemoteBuckets.get(cluster, "aws", BUCKET, n, null).status()).isEqualTo(200);
    }
    assertThat(faults.count(objectGets)).isEqualTo(getsAfterJob);

    // Until the victim is back, a retry cannot cover its share: a clear 503, not a half job.
    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250)).until(() ->
        cluster.map().targets().get(victim).state() == NodeState.OFFLINE);
    Http.Reply early = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(cluster.endpoint() + "/v1/jobs/"
        + id + "/retry")).POST(HttpRequest.BodyPublishers.noBody()));
    assertThat(early.status()).as(early.bodyText()).isIn(503, 404);

    cluster.local().restart(victim);
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250)).ignoreExceptions().until(() ->
        cluster.map().targets().get(victim).state() == NodeState.ACTIVE);
    long getsBefore = faults.count(objectGets);
    JsonNode retry = post("/v1/jobs/" + id + "/retry", "");
    assertThat(retry.path("retry_of").asText()).isEqualTo(id);
    JsonNode r = awaitEnd(retry.path("id").asText());
    assertThat(r.path("state").asText()).as(r.toString()).isEqualTo("succeeded");
    assertThat(r.path("objects").path("cached").asLong()).as("the survivor's share is not fetched again")
        .isGreaterThanOrEqualTo(survivorOwns.size());
    assertThat(faults.count(objectGets) - getsBefore).isLessThanOrEqualTo(OBJECTS - survivorOwns.size());
    assertThat(cached()).hasSize(OBJECTS);
    for (int i = 0; i < OBJECTS; i++) {
      assertThat(RemoteBuckets.get(cluster, "aws", BUCKET, name(i), null).body())
          .isEqualTo(Content.bytes(300 + i, 20_000 + i));
    }
  }
}
