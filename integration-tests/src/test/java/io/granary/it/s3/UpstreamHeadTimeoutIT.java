package io.granary.it.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.hrw.PlacementKey;
import io.granary.it.support.Content;
import io.granary.it.support.Http;
import io.granary.it.support.Resources;
import io.granary.it.support.TestCluster;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The proxy's wait for a target's answer ({@code --upstream-head-timeout}, 2 s here) against a real target frozen
 * with SIGSTOP: requests it relayed whole to that target answer 504 GatewayTimeout (S3 XML) once the wait is over,
 * each logged once with its node, bucket and object; meanwhile the other target is served as usual; and once the
 * target runs again (SIGCONT), no late answer to a timed-out request reaches another client (the connections they
 * were sent on were closed, never pooled). A native request the proxy forwards to it (its mountpaths) is 504 as JSON. Health checks are slow here (60 s to offline), so the frozen target stays
 * active and its requests are relayed rather than refused as offline.
 */
class UpstreamHeadTimeoutIT {
  private static final String BUCKET = "upstream-wait";
  private static final String FROZEN = "t1";
  private static TestCluster cluster;
  private static S3Client s3;

  @BeforeAll
  static void start() throws Exception {
    cluster = TestCluster.start("upstream-head-timeout", 2, List.of(),
        List.of("--health-interval", "2s", "--offline-after", "60s", "--upstream-head-timeout", "2s"));
    s3 = S3Support.sync(cluster);
    s3.createBucket(b -> b.bucket(BUCKET));
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(s3, cluster);
  }

  private static void signal(String name, long pid) throws Exception {
    Process kill = new ProcessBuilder("kill", "-" + name, String.valueOf(pid)).inheritIO().start();
    assertThat(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0).as("kill -%s %d", name, pid).isTrue();
  }

  /** {@code n} keys of the bucket whose owner is {@code target} ({@code notTarget}: whose owner is another). */
  private static List<String> keysOwnedBy(String target, boolean notTarget, int n) throws Exception {
    ClusterMap map = cluster.map();
    List<String> keys = new ArrayList<>();
    for (int i = 0; keys.size() < n; i++) {
      String key = "k" + i;
      boolean owned = map.placement().owner(PlacementKey.digest(Bucket.local(BUCKET), key)).orElseThrow().id()
          .equals(target);
      if (owned != notTarget) {
        keys.add(key);
      }
    }
    return keys;
  }

  private static void put(String key, byte[] data) {
    s3.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromBytes(data));
  }

  private static byte[] get(String key) {
    return s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asByteArray();
  }

  private static void assertGatewayTimeout(Http.Reply r, String what) {
    assertThat(r.status()).as(what + ": " + r.bodyText()).isEqualTo(504);
    assertThat(r.bodyText()).as(what).contains("<Code>GatewayTimeout</Code>").contains("target " + FROZEN);
  }

  @Test
  void frozenTarget_relayedRequestsAre504_othersServed_andNoLateAnswerReachesAnotherRequest() throws Exception {
    List<String> frozenKeys = keysOwnedBy(FROZEN, false, 3);
    String timedOut = frozenKeys.get(0);
    String readAfter = frozenKeys.get(1);
    String putWhileFrozen = frozenKeys.get(2);
    String live = keysOwnedBy(FROZEN, true, 1).get(0);
    byte[] timedOutData = Content.bytes(1, 200_000);
    byte[] readAfterData = Content.bytes(2, 150_000);
    byte[] liveData = Content.bytes(3, 100_000);
    put(timedOut, timedOutData);
    put(readAfter, readAfterData);
    put(live, liveData);

    long pid = cluster.local().process(FROZEN).pid();
    signal("STOP", pid);
    try {
      for (int i = 0; i < 3; i++) {
        assertGatewayTimeout(S3Support.sendSigned(cluster, "GET", "/" + BUCKET + "/" + timedOut, Map.of(), null,
            null), "GET of an object on the frozen target, try " + i);
      }
      byte[] body = Content.bytes(4, 50_000); // sent whole into the frozen target's socket buffer, then waited for
      assertGatewayTimeout(S3Support.sendSigned(cluster, "PUT", "/" + BUCKET + "/" + putWhileFrozen, Map.of(), body,
          body), "PUT to the frozen target");
      // A native request the proxy forwards to the frozen target: 504 as the native JSON error, after the fixed
      // 10 s of the proxy's control calls.
      Http.Reply mountpaths = Http.get(cluster.endpoint() + "/v1/cluster/nodes/" + FROZEN + "/mountpaths");
      assertThat(mountpaths.status()).as(mountpaths.bodyText()).isEqualTo(504);
      assertThat(mountpaths.header("content-type")).hasValueSatisfying(v -> assertThat(v).contains("json"));
      assertThat(mountpaths.bodyText()).contains("\"GatewayTimeout\"");
      // The proxy serves the rest of the cluster meanwhile.
      assertThat(get(live)).isEqualTo(liveData);
      byte[] liveAgain = Content.bytes(5, 80_000);
      put(live, liveAgain);
      assertThat(get(live)).isEqualTo(liveAgain);
    } finally {
      signal("CONT", pid);
    }

    // The frozen target now writes its late answers, onto connections the proxy has closed: every read gets its own.
    for (int i = 0; i < 6; i++) {
      assertThat(get(readAfter)).as("read %d after the target runs again", i).isEqualTo(readAfterData);
    }
    assertThat(get(timedOut)).isEqualTo(timedOutData);

    List<String> logged = Files.readAllLines(cluster.dir().resolve("logs").resolve("p1.log")).stream()
        .filter(l -> l.contains("504 GatewayTimeout")).toList();
    assertThat(logged).as("one line per timed-out request").hasSize(4);
    assertThat(logged).allSatisfy(l -> assertThat(l).contains("node=p1", "bucket=", BUCKET, "target " + FROZEN));
    assertThat(logged.stream().filter(l -> l.contains("object=" + timedOut + " "))).hasSize(3);
    assertThat(logged.stream().filter(l -> l.contains("object=" + putWhileFrozen + " "))).hasSize(1);
  }
}
