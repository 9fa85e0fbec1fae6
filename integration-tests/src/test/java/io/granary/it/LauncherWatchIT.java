package io.granary.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.granary.it.support.Http;
import io.granary.it.support.SingleNode;
import io.granary.it.support.TestCluster;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A node tied to its launcher ({@code --exit-with-parent}, as {@code granary local} starts them) keeps running when
 * it runs out of file descriptors: the watch must not take "cannot open /proc" for the launcher's death. The node's
 * limit is lowered with prlimit(1) once it runs, then client connections use up the rest.
 */
class LauncherWatchIT {
  private static final Path DIR = Path.of(System.getProperty("granary.it.dir", "target/it-data"), "launcher-watch")
      .toAbsolutePath();

  private static long openFds(long pid) throws Exception {
    try (var fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
      return fds.count();
    }
  }

  @Test
  void node_atItsFileDescriptorLimit_staysAlive_andServesAgainOnceConnectionsClose() throws Exception {
    int port = TestCluster.freePortRange(1);
    List<String> args = List.of("proxy", "--id", "p1", "--data", DIR.resolve("proxy").toString(), "--anonymous",
        "--native-auth=false");
    List<Socket> clients = new ArrayList<>();
    try (SingleNode node = SingleNode.start(port, DIR.resolve("logs/p1.log"), args)) {
      long pid = node.process().pid();
      // Started, not only listening: the limit must not catch the proxy persisting its first cluster map (it
      // answers health checks from the moment it listens, before that; a failed persist stops it).
      await().atMost(Duration.ofSeconds(60)).ignoreExceptions()
          .until(() -> Http.get(node.url() + "/v1/health").status() == 200
              && Files.readString(node.log()).contains("proxy serving"));
      long limit = openFds(pid) + 32;
      Process prlimit = new ProcessBuilder("prlimit", "--pid", Long.toString(pid), "--nofile=" + limit + ":" + limit)
          .inheritIO().start();
      assertThat(prlimit.waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(prlimit.exitValue()).as("prlimit lowered the node's limit").isZero();

      for (int i = 0; i < limit + 32; i++) { // more than it can accept: the rest wait in the listen backlog
        clients.add(new Socket(InetAddress.getLoopbackAddress(), port));
      }
      await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(openFds(pid)).isGreaterThanOrEqualTo(limit));
      // Each look brings one more connection: an accept attempted after the limit was reached must fail, whatever
      // the order in which the node took the burst above.
      await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).until(() -> {
        clients.add(new Socket(InetAddress.getLoopbackAddress(), port));
        return Files.readString(node.log()).contains("cannot accept connections: ");
      });
      assertThat(Files.readString(node.log())).as("one line, no stack trace per failed accept")
          .doesNotContain("exceptionCaught").contains("Too many open files");
      // The watch looks once a second: through several looks at the limit the node must keep running.
      await().during(Duration.ofSeconds(4)).atMost(Duration.ofSeconds(10)).until(node.process()::isAlive);
      assertThat(Files.readString(node.log())).doesNotContain("is gone: stopping");

      for (Socket s : clients) {
        s.close();
      }
      clients.clear();
      await().atMost(Duration.ofSeconds(60)).ignoreExceptions()
          .until(() -> Http.get(node.url() + "/v1/health").status() == 200);
      assertThat(node.process().isAlive()).isTrue();
    } finally {
      for (Socket s : clients) {
        s.close();
      }
    }
  }
}
