package io.granary.it.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.Node;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.Rebalance;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.hrw.PlacementKey;
import io.granary.it.support.Content;
import io.granary.it.support.Http;
import io.granary.it.support.Names;
import io.granary.it.support.Resources;
import io.granary.it.support.TestCluster;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * SIGTERM to a target, as Kubernetes sends in a rolling restart: a GET it is streaming completes whole, it leaves as
 * a short maintenance without rebalance (suspended: its objects answer 503 with Retry-After, not 404, and no
 * rebalance starts), it exits 0, and started again it is active by itself and serves its objects, still without
 * any rebalance.
 */
class GracefulStopIT {
  private static final String BUCKET = "graceful";
  private static final String VICTIM = "t2";
  private static final int BIG = 64 << 20; // well beyond the socket buffers: the GET is in flight when paused
  private static TestCluster cluster;

  @BeforeAll
  static void start() throws Exception {
    cluster = TestCluster.start("graceful", 3, List.of(), List.of("--health-interval", "1s", "--offline-after", "4s"),
        false, List.of("--shutdown-grace", "120s"));
    assertThat(cluster.createBucket(BUCKET).status()).isEqualTo(201);
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(cluster);
  }

  private static List<String> namesOwnedBy(ClusterMap map, String target, int n) {
    Random rnd = new Random(19);
    List<String> names = new ArrayList<>();
    while (names.size() < n) {
      String name = Names.random(rnd, names.size());
      if (map.placement().owner(PlacementKey.digest(Bucket.local(BUCKET), name)).orElseThrow().id().equals(target)) {
        names.add(name);
      }
    }
    return names;
  }

  private static long rebalanceId(ClusterMap map) {
    Rebalance r = map.rebalance();
    return r == null ? 0 : r.id();
  }

  private static NodeState state(String id) throws Exception {
    return cluster.map().node(id).map(Node::state).orElseThrow();
  }

  private static S3Client s3() {
    return S3Client.builder().endpointOverride(URI.create(cluster.endpoint()))
        .region(Region.US_EAST_1).forcePathStyle(true).credentialsProvider(StaticCredentialsProvider.create(
            AwsBasicCredentials.create(cluster.credentials().accessKey(), cluster.credentials().secretKey())))
        .build();
  }

  /** A native GET of an object of the stopped target: 503 with Retry-After (not 404). */
  private static void assertTryAgain(String name) throws Exception {
    Http.Reply r = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(), BUCKET,
        name))).GET());
    assertThat(r.status()).as("native GET %s", name).isEqualTo(503);
    assertThat(r.header("Retry-After")).as("native GET %s", name).isPresent();
  }

  /** The same through a real S3 client (it retries 503 a few times, then reports it). */
  private static void assertTryAgainS3(String name) {
    S3Exception e = null;
    try (S3Client s3 = s3()) {
      s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(name));
    } catch (S3Exception x) {
      e = x;
    }
    assertThat(e).as("S3 GET %s", name).isNotNull();
    assertThat(e.statusCode()).as("S3 GET %s", name).isEqualTo(503);
    assertThat(e.awsErrorDetails().sdkHttpResponse().firstMatchingHeader("Retry-After")).isPresent();
  }

  @Test
  void sigterm_finishesTheGetInFlight_leavesSuspendedWithoutRebalance_exits0_returnsActive() throws Exception {
    ClusterMap before = cluster.map();
    List<String> names = namesOwnedBy(before, VICTIM, 6);
    String big = names.get(0);
    List<String> small = names.subList(1, names.size());
    byte[] bigBytes = Content.bytes(1, BIG);
    assertThat(Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(), BUCKET, big)))
        .PUT(HttpRequest.BodyPublishers.ofByteArray(bigBytes))).status()).isEqualTo(200);
    for (int i = 0; i < small.size(); i++) {
      assertThat(Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(), BUCKET,
          small.get(i)))).PUT(HttpRequest.BodyPublishers.ofByteArray(Content.bytes(100 + i, 10_000)))).status())
          .isEqualTo(200);
    }
    String expected = Http.sha256(bigBytes);
    bigBytes = null;
    long rebalanceBefore = rebalanceId(cluster.map());

    // A client reads the big object from its target and pauses after the first MiB.
    HttpResponse<InputStream> get = Http.NO_FOLLOW.send(cluster.signed(HttpRequest.newBuilder(URI.create(
        Names.url(cluster.targetUrl(VICTIM), BUCKET, big))).GET()).build(), HttpResponse.BodyHandlers.ofInputStream());
    assertThat(get.statusCode()).isEqualTo(200);
    MessageDigest md = Http.sha256();
    InputStream body = get.body();
    byte[] buf = new byte[64 * 1024];
    long read = 0;
    while (read < (1 << 20)) {
      int n = body.read(buf);
      assertThat(n).isPositive();
      md.update(buf, 0, n);
      read += n;
    }

    Process victim = cluster.local().process(VICTIM);
    victim.destroy(); // SIGTERM
    await("the target suspended itself").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
        .until(() -> state(VICTIM) == NodeState.SUSPENDED);
    assertThat(rebalanceId(cluster.map())).as("no rebalance started").isEqualTo(rebalanceBefore);
    assertThat(victim.isAlive()).as("still finishing the GET in flight").isTrue();
    for (String name : small) {
      assertTryAgain(name);
    }
    assertTryAgainS3(small.get(0));

    // The paused GET completes whole, then the target exits 0.
    for (int n; (n = body.read(buf)) > 0; ) {
      md.update(buf, 0, n);
      read += n;
    }
    body.close();
    assertThat(read).isEqualTo(BIG);
    assertThat(HexFormat.of().formatHex(md.digest())).isEqualTo(expected);
    assertThat(victim.waitFor(60, TimeUnit.SECONDS)).as("exited after its GET").isTrue();
    assertThat(victim.exitValue()).isZero();
    assertThat(Files.readString(cluster.dir().resolve("logs/" + VICTIM + ".log")))
        .contains("node=" + VICTIM + " suspended for a restart");
    assertTryAgain(small.get(0));
    assertThat(state(VICTIM)).as("stays suspended while down, not offline").isEqualTo(NodeState.SUSPENDED);

    // Started again, it is active by itself and serves its objects; nothing moved meanwhile.
    cluster.local().restart(VICTIM);
    await("active again").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
        .until(() -> state(VICTIM) == NodeState.ACTIVE);
    for (int i = 0; i < small.size(); i++) {
      Http.Reply r = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(), BUCKET,
          small.get(i)))).GET());
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.body()).isEqualTo(Content.bytes(100 + i, 10_000));
    }
    assertThat(Http.sendHashing(Http.FOLLOW, HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(), BUCKET,
        big))).GET()).sha256()).isEqualTo(expected);
    assertThat(rebalanceId(cluster.map())).as("no rebalance for the restart").isEqualTo(rebalanceBefore);
  }
}
