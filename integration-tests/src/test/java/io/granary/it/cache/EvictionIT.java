package io.granary.it.cache;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.ClusterJson;
import io.granary.it.support.Content;
import io.granary.it.support.Http;
import io.granary.it.support.Resources;
import io.granary.it.support.TestCluster;
import io.granary.testkit.S3ProxyServer;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A target with 8 MiB per mountpath: a PUT that does not fit gets 507 and changes nothing; then reading more cached
 * remote data than fits evicts the least recently read copies (they read back byte-exact, fetched again), while
 * the local bucket's object is never evicted.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class EvictionIT {
  private static final String REMOTE = "evict-src";
  private static final int OBJECTS = 100;
  private static final int SIZE = 256 * 1024;
  private static final long CAPACITY = 8L << 20;
  private static S3ProxyServer s3proxy;
  private static TestCluster cluster;
  private static S3Client backend;

  @BeforeAll
  static void start() throws Exception {
    Path work = Files.createTempDirectory("eviction");
    s3proxy = S3ProxyServer.start(work.resolve("s3proxy"));
    backend = RemoteBuckets.backendClient(s3proxy);
    backend.createBucket(b -> b.bucket(REMOTE));
    for (int i = 0; i < OBJECTS; i++) {
      String key = "obj-" + i;
      backend.putObject(b -> b.bucket(REMOTE).key(key), RequestBody.fromBytes(Content.bytes(300 + i, SIZE)));
    }
    cluster = TestCluster.start("eviction", 1, List.of(), List.of("--health-interval", "1s", "--offline-after", "4s"),
        false, List.of("--capacity", "8MiB", "--dont-evict", "0s", "--space-check-interval", "1s",
            "--reserve", "0"));
    Http.Reply r = RemoteBuckets.register(cluster, "aws", REMOTE, RemoteBuckets.s3Props(s3proxy.endpoint(),
        s3proxy.writeCredentialsFile(work.resolve("credentials")), "never", false));
    assertThat(r.status()).as(r.bodyText()).isEqualTo(201);
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(backend, cluster, s3proxy);
  }

  private static long cachedBytes(String bucket, String provider) throws Exception {
    JsonNode page = ClusterJson.mapper().readTree(Http.get(cluster.endpoint() + "/v1/buckets/" + bucket
        + "?provider=" + provider + "&cached=true&limit=10000").body());
    long sum = 0;
    for (JsonNode e : page.path("entries")) {
      sum += e.path("size").asLong();
    }
    return sum;
  }

  @Test
  @Order(2)
  void readingMoreThanFits_evictsCachedCopiesToTheLowWatermark_andEverythingStillReads() throws Exception {
    for (int i = 0; i < OBJECTS; i++) {
      Http.Reply r = RemoteBuckets.get(cluster, "aws", REMOTE, "obj-" + i, null);
      assertThat(r.status()).as("obj-" + i + ": " + (r.status() != 200 ? r.bodyText() : "")).isEqualTo(200);
      assertThat(r.body()).isEqualTo(Content.bytes(300 + i, SIZE));
    }
    // Two mountpaths of 8 MiB: eviction keeps each at or below its 90% high watermark, once it has run.
    Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500))
        .until(() -> cachedBytes(REMOTE, "aws") <= 2 * CAPACITY * 90 / 100);
    assertThat(cachedBytes(REMOTE, "aws")).isLessThan((long) OBJECTS * SIZE);
    // The oldest copies went first; they read back byte-exact all the same (fetched again).
    assertThat(RemoteBuckets.get(cluster, "aws", REMOTE, "obj-0", null).body()).isEqualTo(Content.bytes(300, SIZE));
    // The local bucket's object (written first) went through every eviction run untouched.
    assertThat(Http.get(cluster.endpoint() + "/v1/objects/evict-local/keep").body())
        .isEqualTo(Content.bytes(1, 1 << 20));
  }

  @Test
  @Order(1)
  void localBucket_isNeverEvicted_andAPutThatDoesNotFitGets507() throws Exception {
    Http.Reply created = cluster.createBucket("evict-local");
    assertThat(created.status()).isEqualTo(201);
    byte[] first = Content.bytes(1, 1 << 20);
    assertThat(put("keep", first).status()).isEqualTo(200);
    Http.Reply tooBig = put("too-big", Content.bytes(2, 20 << 20));
    assertThat(tooBig.status()).as(tooBig.bodyText()).isEqualTo(507);
    assertThat(Http.get(cluster.endpoint() + "/v1/objects/evict-local/keep").body()).isEqualTo(first);
    assertThat(Http.get(cluster.endpoint() + "/v1/objects/evict-local/too-big").status()).isEqualTo(404);
    assertThat(cachedBytes("evict-local", "ais")).isEqualTo(1 << 20);
  }

  @Test
  @Order(3)
  void coldGet_intoMountpathsFullOfLocalData_is507_afterWaitingForEviction() throws Exception {
    // Fill both mountpaths with local (never evicted) objects until no 128 KiB PUT fits anywhere, even after the
    // eviction runs the refusals start have removed every cached copy.
    byte[] filler = Content.bytes(5, 128 * 1024);
    int refusedInARow = 0;
    for (int i = 0; i < 1000 && refusedInARow < 20; i++) {
      Http.Reply r = put("fill-" + i, filler);
      if (r.status() == 507) {
        if (refusedInARow++ == 0) {
          // The first refusal of a streak: believe it only after an eviction run that started after it.
          double runs = evictionRuns();
          Awaitility.await("an eviction run after the refusal").atMost(Duration.ofSeconds(30))
              .pollInterval(Duration.ofMillis(100)).until(() -> evictionRuns() >= runs + 2);
        }
      } else {
        assertThat(r.status()).as(r.bodyText()).isEqualTo(200);
        refusedInARow = 0;
      }
    }
    assertThat(refusedInARow).as("PUTs refused in a row").isEqualTo(20);
    // Nothing cached is left to evict: a cold GET waits for room that never comes, then answers 507. That it waited
    // shows in the target's refusals: it asked for room again and again (every 20 ms for 2 s), not once.
    double refusalsBefore = targetCounter("granary_space_refusals_total");
    Http.Reply cold = RemoteBuckets.get(cluster, "aws", REMOTE, "obj-99", null);
    assertThat(cold.status()).as(cold.bodyText()).isEqualTo(507);
    assertThat(targetCounter("granary_space_refusals_total") - refusalsBefore)
        .as("refusals while the cold GET waited for room").isGreaterThanOrEqualTo(10);
    assertThat(Http.get(cluster.endpoint() + "/v1/objects/evict-local/keep").body())
        .isEqualTo(Content.bytes(1, 1 << 20));
  }

  /** The target's count of finished eviction runs ({@code granary_eviction_runs_total}). */
  private static double evictionRuns() throws Exception {
    return targetCounter("granary_eviction_runs_total");
  }

  /** A counter of the (only) target's {@code /metrics}. */
  private static double targetCounter(String name) throws Exception {
    String target = cluster.targetUrl(cluster.targetIds().get(0));
    for (String line : Http.get(target + "/metrics").bodyText().split("\n")) {
      if (line.startsWith(name + " ") || line.startsWith(name + "{")) {
        return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    throw new AssertionError("no " + name + " on " + target);
  }

  private static Http.Reply put(String name, byte[] data) throws Exception {
    return Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(cluster.endpoint() + "/v1/objects/evict-local/"
        + name)).PUT(HttpRequest.BodyPublishers.ofByteArray(data)));
  }
}
