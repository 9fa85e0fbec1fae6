package io.granary.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.ClusterJson;
import io.granary.it.support.Http;
import io.granary.it.support.SingleNode;
import io.granary.it.support.TestCluster;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /v1/health/ready} on real nodes through the start-up windows: a target that has not joined and a proxy
 * without targets answer health (alive) but 503 with the reason; both answer 200 once the target is active.
 */
class ReadinessIT {
  private static final Path DIR = Path.of(System.getProperty("granary.it.dir", "target/it-data"), "readiness")
      .toAbsolutePath();

  private static Http.Reply ready(String url) throws Exception {
    return Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(url + "/v1/health/ready")).GET());
  }

  private static List<String> reasons(Http.Reply r) throws Exception {
    JsonNode body = ClusterJson.mapper().readTree(r.body());
    List<String> out = new ArrayList<>();
    body.path("reasons").forEach(n -> out.add(n.asText()));
    return out;
  }

  private static void awaitAlive(String url) {
    await().atMost(Duration.ofSeconds(60)).ignoreExceptions()
        .until(() -> Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(url + "/v1/health")).GET())
            .status() == 200);
  }

  private static List<String> proxyArgs(Path data) {
    return List.of("proxy", "--id", "p1", "--data", data.toString(), "--anonymous", "--native-auth=false",
        "--health-interval", "1s");
  }

  private static List<String> targetArgs(String id, Path dir, String primary) {
    return List.of("target", "--id", id, "--mountpath", dir.resolve("mp1").toString(), "--mountpath",
        dir.resolve("mp2").toString(), "--primary", primary);
  }

  private static void deleteTree(Path root) throws java.io.IOException {
    if (java.nio.file.Files.exists(root)) {
      try (var walk = java.nio.file.Files.walk(root)) {
        for (Path p : (Iterable<Path>) walk.sorted(java.util.Comparator.reverseOrder())::iterator) {
          java.nio.file.Files.delete(p);
        }
      }
    }
  }

  @Test
  void ready_targetNotJoined_proxyWithoutTargets_are503WithReasons_thenBoth200() throws Exception {
    deleteTree(DIR); // a run before this one left a map in which t1 is active
    int port = TestCluster.freePortRange(3);
    String primary = "http://127.0.0.1:" + port;
    try (SingleNode proxy = SingleNode.start(port, DIR.resolve("logs/p1.log"), proxyArgs(DIR.resolve("proxy")))) {
      awaitAlive(proxy.url());

      // Alive before it holds its own first map (it binds its port first, then names itself in the map): until
      // then it is not ready for that reason; then for the one that stays until a target joins.
      await().atMost(Duration.ofSeconds(30)).until(() -> {
        Http.Reply r = ready(proxy.url());
        return r.status() == 503 && reasons(r).stream().findFirst().orElse("").startsWith("no target is active");
      });
      Http.Reply noTargets = ready(proxy.url());
      assertThat(noTargets.status()).isEqualTo(503);
      assertThat(noTargets.header("Retry-After")).contains("1");
      assertThat(ClusterJson.mapper().readTree(noTargets.body()).path("ready").asBoolean(true)).isFalse();
      assertThat(reasons(noTargets)).singleElement().asString().startsWith("no target is active");
      // Decided: a bucket may be created before any target is active (metadata only; targets get it as they join).
      assertThat(Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(proxy.url() + "/v1/buckets/early"))
          .POST(HttpRequest.BodyPublishers.noBody())).status()).isEqualTo(201);

      // A target whose primary does not answer (nothing listens there) is alive but has not joined.
      int deadPort = port + 2;
      try (SingleNode orphan = SingleNode.start(deadPort, DIR.resolve("logs/t9.log"),
          targetArgs("t9", DIR.resolve("t9"), "http://127.0.0.1:" + TestCluster.freePortRange(1)))) {
        awaitAlive(orphan.url());
        Http.Reply notJoined = ready(orphan.url());
        assertThat(notJoined.status()).isEqualTo(503);
        assertThat(notJoined.header("Retry-After")).contains("1");
        assertThat(reasons(notJoined)).contains("has not received cluster metadata from the primary since it started");
        assertThat(Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(orphan.url() + "/v1/health/ready"))
            .method("HEAD", HttpRequest.BodyPublishers.noBody())).status()).isEqualTo(503);
      }

      try (SingleNode target = SingleNode.start(port + 1, DIR.resolve("logs/t1.log"),
          targetArgs("t1", DIR.resolve("t1"), primary))) {
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> ready(target.url()).status() == 200);
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> ready(proxy.url()).status() == 200);
        assertThat(reasons(ready(proxy.url()))).isEmpty();
        // The bucket created before it joined is known to it: a listing through the proxy asks it.
        assertThat(Http.get(proxy.url() + "/v1/buckets/early").status()).isEqualTo(200);
        Http.Reply put = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(proxy.url() + "/v1/objects/early/a"))
            .PUT(HttpRequest.BodyPublishers.ofString("x")));
        assertThat(put.status()).isEqualTo(200);
      }
    }
  }
}
