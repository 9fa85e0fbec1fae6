package io.granary.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.ClusterJson;
import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.hrw.PlacementKey;
import io.granary.it.support.Content;
import io.granary.it.support.Http;
import io.granary.it.support.Names;
import io.granary.it.support.TestCluster;
import io.granary.it.support.Resources;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * kill -9 a target while PUTs to it are in flight, then restart it: every acknowledged PUT reads back
 * byte-exact, no unacknowledged PUT left a torn object, and no work file survives the restart.
 */
class CrashRecoveryIT {
  private static final String BUCKET = "crash";
  private static final String VICTIM = "t2";
  private static TestCluster cluster;

  @BeforeAll
  static void start() throws Exception {
    cluster = TestCluster.start("crash", 3);
    assertThat(cluster.createBucket(BUCKET).status()).isEqualTo(201);
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(cluster);
  }

  private static List<Path> workFiles(String target) throws java.io.IOException {
    List<Path> all = new ArrayList<>();
    for (Path mp : cluster.mountpaths(target)) {
      try (Stream<Path> work = Files.list(mp.resolve("work"))) {
        all.addAll(work.toList());
      }
    }
    return all;
  }

  private static void signal(String name, long pid) throws Exception {
    Process kill = new ProcessBuilder("kill", "-" + name, String.valueOf(pid)).inheritIO().start();
    assertThat(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0).as("kill -%s %d", name, pid).isTrue();
  }

  @Test
  void killDashNineDuringPuts_acknowledgedObjectsSurviveByteExact_noTornObjects_noWorkFiles() throws Exception {
    ClusterMap map = cluster.map();
    Random rnd = new Random(7);
    // Names the victim owns, so that the kill interrupts PUTs in every stage of the commit.
    List<String> names = new ArrayList<>();
    while (names.size() < 2000) {
      String n = Names.random(rnd, names.size());
      if (map.placement().owner(PlacementKey.digest(Bucket.local(BUCKET), n)).orElseThrow().id().equals(VICTIM)) {
        names.add(n);
      }
    }
    Map<String, long[]> attempted = new ConcurrentHashMap<>(); // name -> {seed, size}
    Set<String> acked = ConcurrentHashMap.newKeySet();
    AtomicInteger next = new AtomicInteger();
    AtomicBoolean stop = new AtomicBoolean();
    ExecutorService writers = Executors.newFixedThreadPool(8);
    for (int w = 0; w < 8; w++) {
      writers.submit(() -> {
        Random r = new Random(Thread.currentThread().getId());
        while (!stop.get()) {
          int i = next.getAndIncrement();
          if (i >= names.size()) {
            return null;
          }
          String name = names.get(i);
          long seed = r.nextLong();
          int size = r.nextInt(2 << 20);
          attempted.put(name, new long[] {seed, size});
          try {
            Http.Reply reply = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(), BUCKET, name)))
                .PUT(HttpRequest.BodyPublishers.ofByteArray(Content.bytes(seed, size))));
            if (reply.status() == 200) {
              acked.add(name);
            }
          } catch (java.io.IOException e) {
            // the target died under this PUT: not acknowledged
          }
        }
        return null;
      });
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    org.awaitility.Awaitility.await("PUTs acknowledged before the kill").atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(20)).until(() -> acked.size() >= 150);
    // Kill at a moment when a PUT is provably half-written: its work file exists. The target is frozen (SIGSTOP)
    // while we look, so the PUT cannot complete between the look and the kill.
    long pid = cluster.local().process(VICTIM).pid();
    int workFilesAtKill = 0;
    while (System.nanoTime() < deadline) {
      signal("STOP", pid);
      workFilesAtKill = workFiles(VICTIM).size();
      if (workFilesAtKill > 0) {
        break;
      }
      signal("CONT", pid);
    }
    cluster.local().kill(VICTIM); // SIGKILL with PUTs in flight (a stopped process dies too)
    assertThat(workFilesAtKill).as("work files of in-flight PUTs when killed").isPositive();
    assertThat(workFiles(VICTIM)).as("work files left by the dead process").isNotEmpty();
    stop.set(true);
    writers.shutdown();
    assertThat(writers.awaitTermination(120, TimeUnit.SECONDS)).isTrue();
    int ackedBeforeRestart = acked.size();

    cluster.local().restart(VICTIM);
    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
        .until(() ->
        Http.get(cluster.targetUrl(VICTIM) + "/v1/health").status() == 200);

    // No work file survived the restart.
    assertThat(workFiles(VICTIM)).as("work files after restart").isEmpty();
    // Every acknowledged PUT reads back exactly (directly from the restarted target).
    for (String name : acked) {
      long[] spec = attempted.get(name);
      Http.Reply r = Http.sendHashing(Http.FOLLOW,
          cluster.signed(HttpRequest.newBuilder(URI.create(Names.url(cluster.targetUrl(VICTIM), BUCKET, name))).GET()));
      assertThat(r.status()).as("acknowledged %s", name).isEqualTo(200);
      assertThat(r.sha256()).as("acknowledged %s", name).isEqualTo(Http.sha256(Content.bytes(spec[0], (int) spec[1])));
    }
    // Unacknowledged PUTs either never happened or happened completely; nothing else is listed.
    int unackedPresent = 0;
    JsonNode page = ClusterJson.mapper().readTree(
        cluster.getSigned(cluster.targetUrl(VICTIM) + "/v1/buckets/" + BUCKET + "?limit=10000").body());
    for (JsonNode e : page.path("entries")) {
      String name = e.path("name").asText();
      assertThat(attempted).as("listed object was PUT").containsKey(name);
      long[] spec = attempted.get(name);
      assertThat(e.path("size").asLong()).as("size of %s", name).isEqualTo(spec[1]);
      if (!acked.contains(name)) {
        Http.Reply r = Http.sendHashing(Http.FOLLOW,
            cluster.signed(HttpRequest.newBuilder(URI.create(Names.url(cluster.targetUrl(VICTIM), BUCKET, name))).GET()));
        assertThat(r.sha256()).as("unacknowledged but present %s", name)
            .isEqualTo(Http.sha256(Content.bytes(spec[0], (int) spec[1])));
        unackedPresent++;
      }
    }
    assertThat(page.path("entries").size()).isGreaterThanOrEqualTo(ackedBeforeRestart);
    assertThat(page.path("entries").size() - unackedPresent).isEqualTo(acked.size());
  }
}
