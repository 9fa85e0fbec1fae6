package io.granary.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.ClusterJson;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.hrw.PlacementKey;
import io.granary.clustermap.hrw.Rendezvous;
import io.granary.it.cache.RemoteBuckets;
import io.granary.it.support.Content;
import io.granary.it.support.GranaryCli;
import io.granary.it.support.Http;
import io.granary.it.support.Resources;
import io.granary.it.support.TestCluster;
import io.granary.testkit.S3ProxyServer;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
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
 * One target with two mountpaths holding a few thousand objects of a local bucket and some cached objects of a
 * remote (S3Proxy) bucket, read in a loop and checked byte for byte while, through the proxy's API: a third
 * mountpath is attached (a third of the objects move to it), the first one is detached (all of its objects move off,
 * its directory ends up empty), the second one's directory is renamed away under the running target (it is disabled,
 * the target serves the rest), bad requests are refused without changing anything, and the target is killed with
 * kill -9 in the middle of a resilver (the restart finishes it: every object once, on its HRW mountpath), and the
 * vanished directory comes back and is attached again (what was deleted or overwritten while it was away stays so).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ResilverIT {
  private static final String BUCKET = "resilver";
  private static final String REMOTE = "resilver-src";
  private static final String TARGET = "t1";
  private static final int OBJECTS = 2500;
  private static final int REMOTE_OBJECTS = 40;
  private static final Map<String, String> SHA = new ConcurrentHashMap<>(); // object URL -> SHA-256 of its content
  private static final Map<String, String> NAMES = new ConcurrentHashMap<>(); // local object URL -> name
  private static S3ProxyServer s3proxy;
  private static S3Client backend;
  private static TestCluster cluster;
  private static Path mp1;
  private static Path mp2;
  private static Path mp3;
  private static final List<String> SURVIVORS = new ArrayList<>(); // local object URLs after mp2 failed
  private static final List<String> VANISHED = new ArrayList<>(); // local object URLs that lived only on mp2

  @BeforeAll
  static void start() throws Exception {
    Path work = Files.createTempDirectory("resilver-it");
    s3proxy = S3ProxyServer.start(work.resolve("s3proxy"));
    backend = RemoteBuckets.backendClient(s3proxy);
    backend.createBucket(b -> b.bucket(REMOTE));
    for (int i = 0; i < REMOTE_OBJECTS; i++) {
      String key = "remote-" + i;
      backend.putObject(b -> b.bucket(REMOTE).key(key), RequestBody.fromBytes(Content.bytes(10_000 + i, 4096 + i)));
    }
    cluster = TestCluster.start("resilver", 1);
    mp1 = cluster.mountpaths(TARGET).get(0).toAbsolutePath().normalize(); // as the target names them
    mp2 = cluster.mountpaths(TARGET).get(1).toAbsolutePath().normalize();
    mp3 = mp1.resolveSibling("mp3");
    assertThat(cluster.createBucket(BUCKET).status()).isEqualTo(201);
    Http.Reply r = RemoteBuckets.register(cluster, "aws", REMOTE, RemoteBuckets.s3Props(s3proxy.endpoint(),
        s3proxy.writeCredentialsFile(work.resolve("credentials")), "never", false));
    assertThat(r.status()).as(r.bodyText()).isEqualTo(201);
    putObjects();
    for (int i = 0; i < REMOTE_OBJECTS; i++) { // cached now: their copies move like the local objects
      String url = RemoteBuckets.objectUrl(cluster, "aws", REMOTE, "remote-" + i, null);
      Http.Reply g = Http.get(url);
      assertThat(g.status()).isEqualTo(200);
      SHA.put(url, Http.sha256(Content.bytes(10_000 + i, 4096 + i)));
    }
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(backend, cluster, s3proxy);
  }

  private static String url(String name) {
    return cluster.endpoint() + "/v1/objects/" + BUCKET + "/" + name;
  }

  /** Small objects of various sizes, PUT through the proxy by a few writers. */
  private static void putObjects() throws Exception {
    ExecutorService writers = Executors.newFixedThreadPool(6);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int w = 0; w < 6; w++) {
        int first = w;
        done.add(writers.submit(() -> {
          for (int i = first; i < OBJECTS; i += 6) {
            String name = "dir-" + (i % 17) + "/obj-" + i;
            byte[] body = Content.bytes(i, 64 + (i * 37) % 8192);
            Http.Reply r = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(url(name)))
                .PUT(HttpRequest.BodyPublishers.ofByteArray(body)));
            assertThat(r.status()).as(name).isEqualTo(200);
            SHA.put(url(name), Http.sha256(body));
            NAMES.put(url(name), name);
          }
          return null;
        }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      writers.shutdown();
    }
  }

  // ------------------------------------------------------------------ the mountpath API, through the proxy

  private static String mountpathsUrl() {
    return cluster.endpoint() + "/v1/cluster/nodes/" + TARGET + "/mountpaths";
  }

  private static String mountpathUrl(Path p, String mode) {
    return mountpathsUrl() + "/" + URLEncoder.encode(p.toString(), StandardCharsets.UTF_8) + "?mode=" + mode;
  }

  private static JsonNode mountpaths() throws Exception {
    Http.Reply r = Http.get(mountpathsUrl());
    assertThat(r.status()).as(r.bodyText()).isEqualTo(200);
    return ClusterJson.mapper().readTree(r.body());
  }

  private static JsonNode mountpath(JsonNode report, Path p) {
    for (JsonNode m : report.path("mountpaths")) {
      if (m.path("path").asText().equals(p.toString())) {
        return m;
      }
    }
    return null;
  }

  private static Http.Reply attach(String body) throws Exception {
    return Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(mountpathsUrl()))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)));
  }

  private static Http.Reply delete(String url) throws Exception {
    return Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(url)).DELETE());
  }

  /** Waits until resilver {@code after + 1} or a later one is done (the target may be restarting meanwhile). */
  private static JsonNode awaitResilverAfter(long after) {
    JsonNode[] last = {null};
    Awaitility.await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
        .until(() -> {
          last[0] = mountpaths();
          JsonNode r = last[0].path("resilver");
          return r.path("id").asLong() > after && r.path("state").asText().equals("done");
        });
    return last[0];
  }

  // ------------------------------------------------------------------ what is on disk

  /** The HRW mountpath of each local object over {@code available}, as the target computes it. */
  private static Path hrw(String name, List<Path> available) {
    return Rendezvous.unweighted(available, Path::toString).pick(PlacementKey.digest(Bucket.local(BUCKET), name));
  }

  /** The file of a local object on {@code mp}: objects/ais/BUCKET/BUCKET_ID/XX/SHA256(name). */
  private static Path file(Path mp, String bucketId, String name) throws Exception {
    String h = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
        .digest(name.getBytes(StandardCharsets.UTF_8)));
    return mp.resolve("objects").resolve("ais").resolve(BUCKET).resolve(bucketId).resolve(h.substring(0, 2))
        .resolve(h);
  }

  private static String bucketId() throws Exception {
    try (Stream<Path> s = Files.list(mp1.resolve("objects").resolve("ais").resolve(BUCKET))) {
      return s.findFirst().orElseThrow().getFileName().toString();
    }
  }

  private static long files(Path dir) throws Exception {
    if (!Files.exists(dir)) {
      return 0;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(Files::isRegularFile).count();
    }
  }

  /** Every local object's file is on its HRW mountpath over {@code available} and on no other mountpath. */
  private static void assertOnHrwMountpaths(List<Path> available, List<Path> all, String bucketId) throws Exception {
    for (String name : NAMES.values()) {
      Path home = hrw(name, available);
      for (Path mp : all) {
        assertThat(Files.exists(file(mp, bucketId, name))).as("%s on %s (its HRW mountpath is %s)", name, mp, home)
            .isEqualTo(mp.equals(home));
      }
    }
  }

  // ------------------------------------------------------------------ readers

  /** Readers GETting objects through the proxy in a loop, checking every byte (by SHA-256). */
  private static final class Reader implements AutoCloseable {
    private final List<String> urls;
    private final boolean strict;
    private final ExecutorService threads;
    private final AtomicBoolean stop = new AtomicBoolean();
    final AtomicLong reads = new AtomicLong();
    final AtomicLong failures = new AtomicLong();
    final Queue<String> failed = new ConcurrentLinkedQueue<>();

    /** @param strict whether any failure counts (false: reads that only keep a disk busy, failures expected) */
    Reader(List<String> urls, int n, boolean strict) {
      this.urls = List.copyOf(urls);
      this.strict = strict;
      this.threads = Executors.newFixedThreadPool(n);
      for (int t = 0; t < n; t++) {
        Random rnd = new Random(t);
        threads.submit(() -> {
          while (!stop.get()) {
            String u = this.urls.get(rnd.nextInt(this.urls.size()));
            try {
              Http.Reply r = Http.sendHashing(Http.FOLLOW, HttpRequest.newBuilder(URI.create(u)).GET());
              if (r.status() != 200 || !r.sha256().equals(SHA.get(u))) {
                fail(u + " -> " + r.status());
              }
            } catch (Exception e) {
              fail(u + " -> " + e);
            }
            reads.incrementAndGet();
          }
          return null;
        });
      }
    }

    private void fail(String what) {
      if (failures.incrementAndGet() <= 20) {
        failed.add(what);
      }
    }

    /** Waits until {@code more} reads have been made after this call. */
    void awaitMoreReads(long more) {
      long target = reads.get() + more;
      Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> reads.get() >= target);
    }

    @Override
    public void close() throws InterruptedException {
      stop.set(true);
      threads.shutdown();
      threads.awaitTermination(30, TimeUnit.SECONDS);
    }

    void assertNoFailures() {
      if (strict) {
        assertThat(failures.get()).as("failed reads, the first: %s", failed).isZero();
      }
    }
  }

  // ------------------------------------------------------------------ the phases

  @Test
  @Order(1)
  void attach_underLoad_movesAboutAThirdToTheNewMountpath_withoutAFailedRead() throws Exception {
    long before = mountpaths().path("resilver").path("id").asLong();
    JsonNode report;
    try (Reader reader = new Reader(new ArrayList<>(SHA.keySet()), 4, true)) {
      reader.awaitMoreReads(200);

      Http.Reply r = attach("{\"path\":\"" + mp3 + "\"}");
      assertThat(r.status()).as(r.bodyText()).isEqualTo(201);
      assertThat(mountpath(ClusterJson.mapper().readTree(r.body()), mp3).path("state").asText())
          .isEqualTo("available");
      report = awaitResilverAfter(before);

      reader.awaitMoreReads(500);
      reader.assertNoFailures();
      assertThat(reader.reads.get()).isGreaterThan(700);
    }
    JsonNode resilver = report.path("resilver");
    long total = OBJECTS + REMOTE_OBJECTS;
    assertThat(resilver.path("objects_moved").asLong()).as("about a third of %d objects", total)
        .isBetween(total / 5, total / 2);
    assertThat(resilver.path("failed").asLong()).isZero();
    assertThat(mountpath(report, mp3).path("objects").asLong()).isEqualTo(resilver.path("objects_moved").asLong());
    assertOnHrwMountpaths(List.of(mp1, mp2, mp3), List.of(mp1, mp2, mp3), bucketId());
    assertThat(metric("granary_resilver_moved_objects_total")).as("what the resilver moved, in /metrics")
        .isGreaterThanOrEqualTo(resilver.path("objects_moved").asLong());
    assertThat(metric("granary_resilver_running")).isZero();
  }

  /** A target metric's value, from its /metrics (0 when absent). */
  private static long metric(String name) throws Exception {
    String text = Http.get(cluster.targetUrl(TARGET) + "/metrics").bodyText();
    for (String line : text.split("\n")) {
      if (line.startsWith(name + "{") || line.startsWith(name + " ")) {
        return (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return 0;
  }

  @Test
  @Order(2)
  void detach_underLoad_movesEveryObjectOff_andItsDirectoryHoldsNone() throws Exception {
    long before = mountpaths().path("resilver").path("id").asLong();
    long onMp1 = mountpath(mountpaths(), mp1).path("objects").asLong();
    assertThat(onMp1).isPositive();
    try (Reader reader = new Reader(new ArrayList<>(SHA.keySet()), 4, true)) {
      reader.awaitMoreReads(200);

      // Through the CLI, as an operator would, waiting for the resilver.
      GranaryCli.Result cli = GranaryCli.run(Duration.ofSeconds(120), "mountpath", "detach", "--cluster",
          cluster.endpoint(), "--target", TARGET, mp1.toString(), "--wait");
      assertThat(cli.exit()).as(cli.all()).isZero();
      JsonNode report = awaitResilverAfter(before);
      Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> mountpath(mountpaths(), mp1) == null);
      assertThat(report.path("resilver").path("objects_moved").asLong()).isEqualTo(onMp1);

      reader.awaitMoreReads(500);
      reader.assertNoFailures();
    }
    assertThat(files(mp1.resolve("objects"))).as("object files left on the detached mountpath").isZero();
    assertOnHrwMountpaths(List.of(mp2, mp3), List.of(mp1, mp2, mp3), bucketId());
    GranaryCli.Result ls = GranaryCli.run(Duration.ofSeconds(60), "mountpath", "ls", "--cluster",
        cluster.endpoint(), "--target", TARGET);
    assertThat(ls.exit()).as(ls.all()).isZero();
    assertThat(ls.stdout()).contains(mp2.toString()).contains(mp3.toString()).contains("done");
    assertThat(ls.stdout().lines()).as("mountpath rows").noneMatch(l -> l.startsWith(mp1 + " "));
  }

  @Test
  @Order(3)
  void mountpathRenamedAwayUnderLoad_isDisabled_andTheTargetServesEverythingElse() throws Exception {
    String bucketId = bucketId();
    List<String> onMp3 = new ArrayList<>();
    List<String> onMp2 = new ArrayList<>();
    for (Map.Entry<String, String> e : NAMES.entrySet()) {
      (hrw(e.getValue(), List.of(mp2, mp3)).equals(mp3) ? onMp3 : onMp2).add(e.getKey());
    }
    assertThat(Files.exists(file(mp3, bucketId, NAMES.get(onMp3.get(0))))).isTrue();
    SURVIVORS.addAll(onMp3);
    VANISHED.addAll(onMp2);
    try (Reader served = new Reader(onMp3, 3, true); Reader doomed = new Reader(onMp2, 2, false)) {
      served.awaitMoreReads(200);

      Files.move(mp2, cluster.dir().resolve(TARGET).resolve("mp2.gone")); // the disk vanishes

      Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
          .until(() -> mountpath(mountpaths(), mp2).path("state").asText().equals("disabled"));
      served.awaitMoreReads(300);
      served.assertNoFailures();
      assertThat(doomed.failures.get()).as("reads of the vanished mountpath's objects failed").isPositive();
    }
    JsonNode report = mountpaths();
    assertThat(mountpath(report, mp2).path("reason").asText()).contains("failed");
    assertThat(report.path("failed_mountpaths").asLong()).isEqualTo(1);
    assertThat(metric("granary_mountpath_failures_total")).as("the failure, in /metrics").isEqualTo(1);
    assertThat(Http.get(cluster.targetUrl(TARGET) + "/v1/health").status()).isEqualTo(200);
    // A local object that lived only there is gone; new writes go to the remaining mountpath.
    assertThat(Http.get(onMp2.get(0)).status()).isEqualTo(404);
    byte[] fresh = Content.bytes(99, 1000);
    Http.Reply put = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(url("after-failure")))
        .PUT(HttpRequest.BodyPublishers.ofByteArray(fresh)));
    assertThat(put.status()).as(put.bodyText()).isEqualTo(200);
    assertThat(Http.get(url("after-failure")).body()).isEqualTo(fresh);
    SHA.put(url("after-failure"), Http.sha256(fresh));
    NAMES.put(url("after-failure"), "after-failure");
    SURVIVORS.add(url("after-failure"));
    assertThat(Files.exists(file(mp3, bucketId, "after-failure"))).isTrue();
    assertThat(mp2).as("the vanished directory is never created again").doesNotExist();
    // Cached remote objects are all served: those that were on the failed disk are fetched again.
    for (int i = 0; i < REMOTE_OBJECTS; i++) {
      Http.Reply g = RemoteBuckets.get(cluster, "aws", REMOTE, "remote-" + i, null);
      assertThat(g.status()).isEqualTo(200);
      assertThat(g.body()).isEqualTo(Content.bytes(10_000 + i, 4096 + i));
    }
  }

  /** Each mountpath's path, state and reason (what a request could change; not the bytes others write). */
  private static List<String> states() throws Exception {
    List<String> out = new ArrayList<>();
    for (JsonNode m : mountpaths().path("mountpaths")) {
      out.add(m.path("path").asText() + " " + m.path("state").asText() + " " + m.path("reason").asText());
    }
    return out;
  }

  @Test
  @Order(4)
  void badRequests_areRefused_andChangeNothing() throws Exception {
    List<String> before = states();
    long resilver = mountpaths().path("resilver").path("id").asLong();

    Http.Reply unknownNode = Http.get(cluster.endpoint() + "/v1/cluster/nodes/t9/mountpaths");
    assertThat(unknownNode.status()).as(unknownNode.bodyText()).isEqualTo(404);
    assertThat(Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(cluster.endpoint()
        + "/v1/cluster/nodes/t9/mountpaths")).POST(HttpRequest.BodyPublishers.ofString("{\"path\":\"" + mp1 + "\"}")))
        .status()).isEqualTo(404);
    assertThat(delete(mountpathUrl(cluster.dir().resolve("no-such-mountpath"), "detach")).status()).isEqualTo(404);
    Http.Reply last = delete(mountpathUrl(mp3, "detach"));
    assertThat(last.status()).as(last.bodyText()).isEqualTo(409);
    assertThat(last.bodyText()).contains("LastMountpath");
    assertThat(delete(mountpathUrl(mp3, "disable")).status()).isEqualTo(409);
    assertThat(delete(mountpathUrl(mp3, "explode")).status()).isEqualTo(400);
    assertThat(attach("{\"path\":\"" + mp3 + "\"}").status()).as("attached already").isEqualTo(409);
    for (String bad : List.of("{not json", "", "[]", "{\"path\":5}", "{\"path\":\"relative/dir\"}",
        "{\"path\":\"/no/such/parent/mp\"}", "{\"path\":\"" + mp1 + "\",\"extra\":1}")) {
      Http.Reply r = attach(bad);
      assertThat(r.status()).as("POST %s: %s", bad, r.bodyText()).isEqualTo(400);
    }
    assertThat(Path.of("/no/such/parent")).doesNotExist();

    assertThat(states()).isEqualTo(before);
    assertThat(mountpaths().path("resilver").path("id").asLong()).as("no resilver started").isEqualTo(resilver);
  }

  @Test
  @Order(5)
  void killedMidResilver_theRestartFinishesIt_nothingLostOrDuplicated() throws Exception {
    Path mp4 = mp1.resolveSibling("mp4");
    long before = mountpaths().path("resilver").path("id").asLong();
    Http.Reply r = attach("{\"path\":\"" + mp4 + "\"}");
    assertThat(r.status()).as(r.bodyText()).isEqualTo(201);
    JsonNode[] atKill = {null};
    Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(10)).until(() -> {
      atKill[0] = mountpaths().path("resilver");
      return atKill[0].path("objects_moved").asLong() >= 20;
    });
    cluster.local().kill(TARGET); // kill -9 in the middle of the walk
    assertThat(atKill[0].path("id").asLong()).isGreaterThan(before);
    assertThat(atKill[0].path("state").asText()).as("killed while moving: %s", atKill[0]).isEqualTo("running");

    cluster.local().restart(TARGET); // the same flags: mp1 (detached) and mp2 (failed) stay out, mp3 and mp4 stay
    JsonNode report = awaitResilverAfter(before);
    assertThat(report.path("resilver").path("id").asLong()).as("the same resilver, resumed")
        .isEqualTo(atKill[0].path("id").asLong());
    assertThat(report.path("resilver").path("cause").asText()).contains("resuming");
    assertThat(mountpath(report, mp1)).as("detached at run time, though still given").isNull();
    assertThat(mountpath(report, mp2).path("state").asText()).isEqualTo("disabled");
    assertThat(mountpath(report, mp4).path("state").asText()).isEqualTo("available");
    assertThat(mp2).as("never created again").doesNotExist();

    String bucketId = bucketId();
    for (String u : SURVIVORS) {
      Http.Reply g = Http.sendHashing(Http.FOLLOW, HttpRequest.newBuilder(URI.create(u)).GET());
      assertThat(g.status()).as(u).isEqualTo(200);
      assertThat(g.sha256()).as(u).isEqualTo(SHA.get(u));
      String name = NAMES.get(u);
      Path home = hrw(name, List.of(mp3, mp4));
      for (Path mp : List.of(mp1, mp3, mp4)) {
        assertThat(Files.exists(file(mp, bucketId, name))).as("%s on %s", name, mp).isEqualTo(mp.equals(home));
      }
    }
    JsonNode page = ClusterJson.mapper().readTree(Http.get(cluster.endpoint() + "/v1/buckets/" + BUCKET
        + "?limit=10000").body());
    List<String> listed = new ArrayList<>();
    page.path("entries").forEach(e -> listed.add(e.path("name").asText()));
    assertThat(listed).doesNotHaveDuplicates().hasSize(SURVIVORS.size());
  }

  @Test
  @Order(6)
  void vanishedMountpathComesBack_deletesAndOverwritesMadeMeanwhileAreNotUndone() throws Exception {
    assertThat(VANISHED).hasSizeGreaterThan(60);
    List<String> deleted = VANISHED.subList(0, 20);
    List<String> overwritten = VANISHED.subList(20, 40);
    List<String> untouched = VANISHED.subList(40, VANISHED.size());
    for (String u : deleted) {
      Http.Reply d = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(u)).DELETE());
      assertThat(d.status()).as("DELETE %s while its disk is away: %s", u, d.bodyText()).isEqualTo(404);
    }
    for (String u : overwritten) {
      byte[] body = Content.bytes(u.hashCode(), 777);
      Http.Reply p = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(u))
          .PUT(HttpRequest.BodyPublishers.ofByteArray(body)));
      assertThat(p.status()).as(p.bodyText()).isEqualTo(200);
      SHA.put(u, Http.sha256(body));
    }
    List<Path> back = List.of(mp2, mp3, mp4());
    List<String> fresh = new ArrayList<>(); // written now; their HRW mountpath is mp2 once it is back
    for (int i = 0; fresh.size() < 10; i++) {
      String name = "fresh-" + i;
      if (hrw(name, back).equals(mp2)) {
        byte[] body = Content.bytes(50_000 + i, 300 + i);
        Http.Reply p = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(url(name)))
            .PUT(HttpRequest.BodyPublishers.ofByteArray(body)));
        assertThat(p.status()).as(p.bodyText()).isEqualTo(200);
        SHA.put(url(name), Http.sha256(body));
        NAMES.put(url(name), name);
        fresh.add(url(name));
      }
    }
    long before = mountpaths().path("resilver").path("id").asLong();

    Files.move(cluster.dir().resolve(TARGET).resolve("mp2.gone"), mp2); // the disk comes back, as it was
    Http.Reply r = attach("{\"path\":\"" + mp2 + "\"}");
    assertThat(r.status()).as(r.bodyText()).isEqualTo(201);
    JsonNode report = awaitResilverAfter(before);

    assertThat(mountpath(report, mp2).path("state").asText()).isEqualTo("available");
    for (String u : deleted) {
      assertThat(Http.get(u).status()).as("%s was deleted while its disk was away", u).isEqualTo(404);
    }
    List<String> served = new ArrayList<>(SURVIVORS);
    served.addAll(overwritten);
    served.addAll(untouched); // untouched meanwhile: back with their disk
    served.addAll(fresh);
    String bucketId = bucketId();
    for (String u : served) {
      Http.Reply g = Http.sendHashing(Http.FOLLOW, HttpRequest.newBuilder(URI.create(u)).GET());
      assertThat(g.status()).as(u).isEqualTo(200);
      assertThat(g.sha256()).as(u).isEqualTo(SHA.get(u));
      String name = NAMES.get(u);
      Path home = hrw(name, back);
      for (Path mp : back) {
        assertThat(Files.exists(file(mp, bucketId, name))).as("%s on %s", name, mp).isEqualTo(mp.equals(home));
      }
    }
    for (String u : deleted) {
      for (Path mp : back) {
        assertThat(file(mp, bucketId, NAMES.get(u))).as("file of a deleted object").doesNotExist();
      }
    }
    JsonNode page = ClusterJson.mapper().readTree(Http.get(cluster.endpoint() + "/v1/buckets/" + BUCKET
        + "?limit=10000").body());
    List<String> listed = new ArrayList<>();
    page.path("entries").forEach(e -> listed.add(e.path("name").asText()));
    assertThat(listed).doesNotHaveDuplicates().hasSize(served.size())
        .doesNotContainAnyElementsOf(deleted.stream().map(NAMES::get).toList());
  }

  private static Path mp4() {
    return mp1.resolveSibling("mp4");
  }
}
