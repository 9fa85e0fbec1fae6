package io.granary.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.ClusterJson;
import io.granary.it.support.Http;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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

  /** What the launcher printed up to "Press Ctrl-C": every line, and the endpoint it names. */
  private record Banner(List<String> lines, String endpoint) {
    String line(String containing) {
      return lines.stream().filter(l -> l.contains(containing)).findFirst()
          .orElseThrow(() -> new AssertionError("no line with '" + containing + "' in " + lines));
    }
  }

  /** Reads the launcher's output until the "is up" banner; returns the endpoint it prints. */
  private static String awaitUp(Process p) throws Exception {
    return awaitBanner(p).endpoint();
  }

  private static Banner awaitBanner(Process p) throws Exception {
    BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    String endpoint = null;
    List<String> lines = new ArrayList<>();
    for (String line; System.nanoTime() < deadline && (line = out.readLine()) != null; ) {
      lines.add(line);
      if (line.contains("endpoint:")) {
        endpoint = line.substring(line.indexOf("http")).split("\\s+")[0];
      }
      if (line.contains("Press Ctrl-C")) {
        return new Banner(lines, endpoint);
      }
    }
    throw new AssertionError("granary local did not come up: " + lines);
  }

  /** The class-data archive of a local cluster's data directory, or null while there is none. */
  private static Path archive(Path data) throws java.io.IOException {
    Path dir = data.resolve("class-sharing");
    if (!java.nio.file.Files.isDirectory(dir)) {
      return null;
    }
    try (var files = java.nio.file.Files.list(dir)) {
      return files.filter(f -> f.getFileName().toString().matches("nodes-[0-9a-f]+\\.jsa")).findFirst()
          .orElse(null);
    }
  }

  /** Everything the launcher prints until it exits (it must exit within a minute). */
  private static String outputUntilExit(Process p) throws Exception {
    java.util.concurrent.CompletableFuture<String> all = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
      try {
        return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    });
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the launcher exits").isTrue();
    return all.get(30, TimeUnit.SECONDS);
  }

  private static void stop(Process p, List<ProcessHandle> nodes) throws Exception {
    p.destroy(); // SIGTERM
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    for (ProcessHandle n : nodes) {
      n.onExit().get(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void local_portTaken_failsWithOneClearLine_andLeavesNoNode() throws Exception {
    Path data = Path.of(System.getProperty("granary.it.dir", "target/it-data"), "local-taken").toAbsolutePath();
    int port = freePort(3);
    try (java.net.ServerSocket taken = new java.net.ServerSocket(port + 1, 50,
        java.net.InetAddress.getByName("127.0.0.1"))) {
      Process p = launch(data, port);
      try {
        String out = outputUntilExit(p);
        assertThat(p.exitValue()).isNotZero();
        assertThat(out).contains("port " + (port + 1) + " (target t1) is in use").doesNotContain("is up")
            .doesNotContain("AWS_SECRET_ACCESS_KEY");
        assertThat(p.descendants().toList()).as("no node left behind").isEmpty();
      } finally {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
      }
    }
  }

  @Test
  void local_restartOverKeptData_keepsTheS3Keys_andServesRightAfterTheBanner() throws Exception {
    Path data = Path.of(System.getProperty("granary.it.dir", "target/it-data"), "local-restart").toAbsolutePath();
    deleteTree(data); // the first start must be a fresh one
    int port = freePort(3);
    Process first = launch(data, port);
    Banner before;
    try {
      before = awaitBanner(first);
      assertThat(before.line("GRANARY_ENDPOINT")).contains("export GRANARY_ENDPOINT=" + before.endpoint());
      // A new cluster holds no bucket: nothing will move to its targets and nobody reads yet, so they skip the warm-up
      assertThat(Files.readString(data.resolve("logs/t1.log")))
          .contains("node=t1 joins without a warm-up: the cluster holds no bucket");
      assertThat(Http.send(Http.NO_FOLLOW, java.net.http.HttpRequest.newBuilder(java.net.URI.create(before.endpoint()
          + "/v1/buckets/kept")).POST(java.net.http.HttpRequest.BodyPublishers.noBody())).status()).isEqualTo(201);
      assertThat(Http.send(Http.FOLLOW, java.net.http.HttpRequest.newBuilder(java.net.URI.create(before.endpoint()
          + "/v1/objects/kept/a.txt")).PUT(java.net.http.HttpRequest.BodyPublishers.ofString("kept bytes")))
          .status()).isEqualTo(200);
      // The first start's nodes recorded the classes they load; the archive of them is made in the background.
      org.awaitility.Awaitility.await().atMost(java.time.Duration.ofMinutes(3))
          .pollInterval(java.time.Duration.ofMillis(500)).until(() -> archive(data) != null);
      stop(first, first.descendants().toList());
    } finally {
      first.descendants().forEach(ProcessHandle::destroyForcibly);
      first.destroyForcibly();
    }
    assertThat(java.nio.file.Files.getPosixFilePermissions(data.resolve("s3-keys")))
        .containsExactlyInAnyOrder(java.nio.file.attribute.PosixFilePermission.OWNER_READ,
            java.nio.file.attribute.PosixFilePermission.OWNER_WRITE);

    Process again = launch(data, port);
    try {
      Banner after = awaitBanner(again);
      // Right after the banner, with no wait of our own: every node was ready before it was printed.
      Http.Reply get = Http.get(after.endpoint() + "/v1/objects/kept/a.txt");
      assertThat(get.status()).isEqualTo(200);
      assertThat(get.bodyText()).isEqualTo("kept bytes");
      assertThat(after.line("AWS_SECRET_ACCESS_KEY")).isEqualTo(before.line("AWS_SECRET_ACCESS_KEY"));
      assertThat(after.lines()).anyMatch(l -> l.contains("kept from the last run"));
      // A restarted target comes back to its place and its objects: no rebalance moves to it, no rehearsal
      // (a restarted target is ready with the metadata it kept, and may log its warm-up after the banner)
      Path t1Log = data.resolve("logs/t1.log");
      org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(60))
          .pollInterval(java.time.Duration.ofMillis(200))
          .until(() -> Files.readString(t1Log).contains("node=t1 join not rehearsed: it returns to its place"));
      assertThat(Files.readString(t1Log)).doesNotContain("join rehearsed");
      // Every node of the second start maps that archive.
      Path jsa = archive(data);
      List<ProcessHandle> nodes = again.descendants().toList();
      assertThat(nodes).hasSize(3);
      for (ProcessHandle n : nodes) {
        assertThat(java.nio.file.Files.readString(Path.of("/proc", String.valueOf(n.pid()), "maps")))
            .as("node %s maps the class-data archive", n.pid()).contains(jsa.toString());
      }
      stop(again, nodes);
    } finally {
      again.descendants().forEach(ProcessHandle::destroyForcibly);
      again.destroyForcibly();
    }
  }

  @Test
  void local_startsProxyAndTargets_andSigtermStopsEveryProcess() throws Exception {
    Path data = Path.of(System.getProperty("granary.it.dir", "target/it-data"), "local-sigterm").toAbsolutePath();
    Process p = launch(data, freePort(3));
    try {
      String endpoint = awaitUp(p);
      JsonNode map = ClusterJson.mapper().readTree(Http.get(endpoint + "/v1/cluster/map").body());
      assertThat(map.path("targets").size()).isEqualTo(2);
      List<ProcessHandle> nodes = nodesOf(p);
      assertThat(nodes).hasSize(3);
      assertThat(Path.of(data.toString(), "t1", "mp1")).isDirectory();
      assertThat(Path.of(data.toString(), "t2", "mp2")).isDirectory();
      List<ProcessHandle> targets = new ArrayList<>();
      for (ProcessHandle n : nodes) { // ProcessHandle.Info cuts a command line this long short: read it whole
        if (Files.readString(Path.of("/proc", String.valueOf(n.pid()), "cmdline")).contains("\0target\0")) {
          targets.add(n);
        }
      }
      assertThat(targets).hasSize(2);
      for (ProcessHandle t : targets) {
        assertBackgroundYields(t.pid());
      }

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

  /**
   * The launcher's node processes: not the class-data dump it may run beside them once the first cluster of a
   * classpath is up (ClassSharing), which ends by itself.
   */
  private static List<ProcessHandle> nodesOf(Process launcher) {
    return launcher.descendants().filter(d -> {
      try {
        return !Files.readString(Path.of("/proc", String.valueOf(d.pid()), "cmdline")).contains("-Xshare:dump");
      } catch (java.io.IOException e) {
        return false; // ended meanwhile
      }
    }).toList();
  }

  /**
   * A target's background threads (its hand-off sender, JIT compilers) run at nice 10 and the threads serving
   * requests at 0 (io.granary.common.exec.Background), read from /proc.
   */
  private static void assertBackgroundYields(long pid) throws Exception {
    Map<String, Integer> nice = new HashMap<>();
    try (var tasks = Files.list(Path.of("/proc", String.valueOf(pid), "task"))) {
      for (Path t : tasks.toList()) {
        String stat = Files.readString(t.resolve("stat"));
        String[] after = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        nice.put(Files.readString(t.resolve("comm")).trim() + "#" + t.getFileName(),
            Integer.parseInt(after[16])); // field 19 of stat: nice
      }
    }
    assertThat(nice).as("threads of target %d", pid)
        .anySatisfy((name, n) -> assertThat(name).startsWith("handoff-"))
        .anySatisfy((name, n) -> assertThat(name).startsWith("http-"));
    nice.forEach((name, n) -> {
      if (name.startsWith("handoff-") || name.startsWith("C2 Compiler") || name.startsWith("C1 Compiler")) {
        assertThat(n).as("nice of %s in %d", name, pid).isEqualTo(10);
      } else if (name.startsWith("http-") || name.startsWith("disk-")) {
        assertThat(n).as("nice of %s in %d", name, pid).isZero();
      }
    });
  }

  @Test
  void local_killedWithSigkill_leavesNoOrphans() throws Exception {
    Path data = Path.of(System.getProperty("granary.it.dir", "target/it-data"), "local-sigkill").toAbsolutePath();
    Process p = launch(data, freePort(3));
    List<ProcessHandle> nodes = List.of();
    try {
      awaitUp(p);
      nodes = nodesOf(p);
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

  private static void deleteTree(Path root) throws java.io.IOException {
    if (java.nio.file.Files.exists(root)) {
      try (var walk = java.nio.file.Files.walk(root)) {
        for (Path f : (Iterable<Path>) walk.sorted(java.util.Comparator.reverseOrder())::iterator) {
          java.nio.file.Files.delete(f);
        }
      }
    }
  }

  private static int freePort(int n) throws Exception {
    return io.granary.it.support.TestCluster.freePortRange(n);
  }
}
