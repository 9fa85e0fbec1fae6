package io.granary.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.ClusterJson;
import io.granary.it.support.Http;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code granary local} as a user runs it: prints the endpoint once the cluster is up, and SIGTERM (or its own
 * sudden death) leaves no node process behind.
 */
class LocalCommandIT {

  private static Process launch(Path data, int port) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"), "-cp",
        System.getProperty("granary.node.classpath"), "io.granary.cli.GranaryCommand", "local", "--targets", "2",
        "--port", String.valueOf(port), "--data", data.toString(), "--log-dir-only", "--jvm-opt=-Xmx128m"));
    return new ProcessBuilder(cmd).redirectErrorStream(true).start();
  }

  /** Reads the launcher's output until the "is up" banner; returns the endpoint it prints. */
  private static String awaitUp(Process p) throws Exception {
    BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    String endpoint = null;
    for (String line; System.nanoTime() < deadline && (line = out.readLine()) != null; ) {
      if (line.contains("endpoint:")) {
        endpoint = line.substring(line.indexOf("http")).split("\\s+")[0];
      }
      if (line.contains("Press Ctrl-C")) {
        return endpoint;
      }
    }
    throw new AssertionError("granary local did not come up");
  }

  @Test
  void local_startsProxyAndTargets_andSigtermStopsEveryProcess() throws Exception {
    Path data = Path.of(System.getProperty("granary.it.dir", "target/it-data"), "local-sigterm").toAbsolutePath();
    Process p = launch(data, freePort(3));
    try {
      String endpoint = awaitUp(p);
      JsonNode map = ClusterJson.mapper().readTree(Http.get(endpoint + "/v1/cluster/map").body());
      assertThat(map.path("targets").size()).isEqualTo(2);
      List<ProcessHandle> nodes = p.descendants().toList();
      assertThat(nodes).hasSize(3);
      assertThat(Path.of(data.toString(), "t1", "mp1")).isDirectory();
      assertThat(Path.of(data.toString(), "t2", "mp2")).isDirectory();

      p.destroy(); // SIGTERM
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
      for (ProcessHandle n : nodes) {
        assertThat(n.onExit().get(30, TimeUnit.SECONDS).isAlive()).isFalse();
      }
    } finally {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
    }
  }

  @Test
  void local_killedWithSigkill_leavesNoOrphans() throws Exception {
    Path data = Path.of(System.getProperty("granary.it.dir", "target/it-data"), "local-sigkill").toAbsolutePath();
    Process p = launch(data, freePort(3));
    List<ProcessHandle> nodes = List.of();
    try {
      awaitUp(p);
      nodes = p.descendants().toList();
      assertThat(nodes).hasSize(3);
      p.destroyForcibly(); // SIGKILL: no shutdown hook runs in the launcher
      for (ProcessHandle n : nodes) {
        assertThat(n.onExit().get(30, TimeUnit.SECONDS).isAlive()).as("node %d exits with its parent", n.pid()).isFalse();
      }
    } finally {
      nodes.forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
    }
  }

  private static int freePort(int n) throws Exception {
    return io.granary.it.support.TestCluster.freePortRange(n);
  }
}
