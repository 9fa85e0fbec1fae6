package io.granary.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.granary.it.support.Http;
import io.granary.it.support.SingleNode;
import io.granary.it.support.TestCluster;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code --primary} by DNS name, as pods find the proxies' Service: a name that does not resolve (yet) keeps the
 * target alive and retrying with a log line that says so, rather than failing at start; a name that resolves
 * ({@code localhost}) joins.
 */
class PrimaryDnsIT {
  private static final Path DIR = Path.of(System.getProperty("granary.it.dir", "target/it-data"), "primary-dns")
      .toAbsolutePath();
  /** RFC 2606 reserves .invalid: this name never resolves. */
  private static final String NO_SUCH_HOST = "granary-proxy.invalid";

  private static Http.Reply ready(String url) throws Exception {
    return Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(url + "/v1/health/ready")).GET());
  }

  /** Without the warm-up, which this test is not about: it would first ask the missing primary for 15 s. */
  private static List<String> targetArgs(String id, String primary) {
    return List.of("target", "--id", id, "--mountpath", DIR.resolve(id).resolve("mp1").toString(), "--primary",
        primary, "--warm-up=false");
  }

  private static void deleteTree(Path root) throws java.io.IOException {
    if (Files.exists(root)) {
      try (var walk = Files.walk(root)) {
        for (Path p : (Iterable<Path>) walk.sorted(java.util.Comparator.reverseOrder())::iterator) {
          Files.delete(p);
        }
      }
    }
  }

  @Test
  void unresolvablePrimary_targetStaysUpAndRetries_sayingTheNameDoesNotResolve() throws Exception {
    deleteTree(DIR);
    int port = TestCluster.freePortRange(1);
    Path log = DIR.resolve("logs/t1.log");
    try (SingleNode target = SingleNode.start(port, log, targetArgs("t1", "http://" + NO_SUCH_HOST + ":51080"))) {
      String said = "node=t1 cannot register with primary http://" + NO_SUCH_HOST + ":51080 yet: host " + NO_SUCH_HOST
          + " does not resolve";
      await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).until(() ->
          Files.exists(log) && Files.readString(log).contains(said) && Files.readString(log).contains("(2 attempts)"));
      assertThat(target.process().isAlive()).as("retrying, not failed").isTrue();
      assertThat(Http.get(target.url() + "/v1/health").status()).as("alive").isEqualTo(200);
      Http.Reply notReady = ready(target.url());
      assertThat(notReady.status()).isEqualTo(503);
      assertThat(notReady.bodyText()).contains("has not received cluster metadata from the primary since it started");
    }
  }

  @Test
  void primaryByHostName_joins() throws Exception {
    Path dir = DIR.resolve("by-name");
    deleteTree(dir);
    int port = TestCluster.freePortRange(2);
    List<String> proxy = List.of("proxy", "--id", "p1", "--data", dir.resolve("proxy").toString(), "--anonymous",
        "--native-auth=false", "--health-interval", "1s");
    try (SingleNode p = SingleNode.start(port, dir.resolve("logs/p1.log"), proxy);
        SingleNode t = SingleNode.start(port + 1, dir.resolve("logs/t2.log"),
            List.of("target", "--id", "t2", "--mountpath", dir.resolve("t2").toString(), "--primary",
                "http://localhost:" + port))) {
      await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> ready(t.url()).status() == 200);
      await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> ready(p.url()).status() == 200);
    }
  }
}
