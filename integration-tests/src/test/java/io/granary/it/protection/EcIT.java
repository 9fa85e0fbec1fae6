package io.granary.it.protection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.ClusterJson;
import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.Node;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.hrw.PlacementKey;
import io.granary.it.support.Content;
import io.granary.it.support.GranaryCli;
import io.granary.it.support.Http;
import io.granary.it.support.Names;
import io.granary.it.support.TestCluster;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Erasure coding across targets (docs/protection.md): seven targets, a bucket with EC 4+2 and a size limit of
 * 256 KiB. Objects of 0 to 8 MiB (some below the limit, which get 2 replicas) are encoded by their owners; a main
 * file deleted on disk is rebuilt by the next GET, byte-exact, and restored; a DELETE removes the slices on their
 * holders, an overwrite replaces them; two targets killed (kill -9, offline by the primary's health checks, keeping
 * their HRW place) leave every object readable byte-exact (rebuilt by the first slice holder that answers); a third
 * leaves an object whose owner and both replicas are gone answering 503 NotEnoughSlices, and none answering wrong
 * bytes; restarted, every object reads again and a holder that was down while an object was deleted drops its orphaned
 * slices. Phases run in order.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class EcIT {
  private static final String BUCKET = "coded";
  private static final int D = 4;
  private static final int P = 2;
  private static final int LIMIT = 256 << 10;
  private static final Duration WAIT = Duration.ofSeconds(90);
  /** name -> {size, seed}; content is Content.bytes(seed, size). */
  private static final Map<String, long[]> OBJECTS = new LinkedHashMap<>();
  private static final Map<String, String> SHA = new LinkedHashMap<>();
  private static final List<String> killed = new ArrayList<>();
  private static TestCluster cluster;

  @BeforeAll
  static void start() throws Exception {
    cluster = TestCluster.start("ec", 7, List.of(), List.of("--health-interval", "1s", "--offline-after", "4s"));
    Http.Reply created = cluster.createBucket(BUCKET, "{\"protection\":{\"ec.data\":" + D + ",\"ec.parity\":" + P
        + ",\"ec.objSizeLimit\":" + LIMIT + "}}");
    assertThat(created.status()).as(created.bodyText()).isEqualTo(201);
    Random r = new Random(20);
    for (int i = 0; i < 200; i++) {
      int size;
      if (i % 5 < 2) {
        size = i % 10 == 0 ? 0 : r.nextInt(LIMIT); // below the limit: replicas
      } else if (i % 5 < 4) {
        size = LIMIT + r.nextInt(768 << 10);
      } else {
        size = (1 << 20) + r.nextInt(7 << 20); // up to 8 MiB
      }
      OBJECTS.put("obj-" + i + "/" + Names.random(r, i), new long[] {size, 1000 + i});
    }
  }

  @AfterAll
  static void stop() throws Exception {
    if (cluster != null) {
      cluster.closeAndDeleteData();
    }
  }

  private static byte[] content(String name) {
    long[] o = OBJECTS.get(name);
    return Content.bytes(o[1], (int) o[0]);
  }

  private static String url(String name) {
    return Names.url(cluster.endpoint(), BUCKET, name);
  }

  /** A metric summed over the live targets ({@code name{label="v"}}: its lines with that label). */
  private static double sum(String metric) throws Exception {
    double total = 0;
    for (String id : cluster.targetIds()) {
      if (!killed.contains(id)) {
        total += metric(id, metric);
      }
    }
    return total;
  }

  private static Http.Reply get(String name) throws Exception {
    return Http.sendHashing(Http.FOLLOW, HttpRequest.newBuilder(URI.create(url(name))).GET());
  }

  private static void assertExact(String name) throws Exception {
    Http.Reply r = get(name);
    assertThat(r.status()).as("GET %s: %s", name, r.body() == null ? "" : r.bodyText()).isEqualTo(200);
    assertThat(r.length()).as(name).isEqualTo(OBJECTS.get(name)[0]);
    assertThat(r.sha256()).as(name).isEqualTo(SHA.get(name));
  }

  /** The slice records target {@code id} holds for {@code name} (signed: targets take only cluster requests). */
  private static JsonNode records(String id, String name) throws Exception {
    Http.Reply r = cluster.getSigned(cluster.targetUrl(id) + "/v1/ec/records/" + BUCKET + "/"
        + io.granary.common.http.RequestPath.encodePath(name) + "?provider=ais");
    assertThat(r.status()).as(r.bodyText()).isEqualTo(200);
    return ClusterJson.mapper().readTree(r.body()).path("records");
  }

  /** The {@code skip}-th object at or above the size limit (sliced, not replicated). */
  private static String sliced(int skip) {
    return OBJECTS.keySet().stream().filter(n -> OBJECTS.get(n)[0] >= LIMIT).skip(skip).findFirst().orElseThrow();
  }

  private static void delete(String name) throws Exception {
    Http.Reply del = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(url(name))).DELETE());
    assertThat(del.status()).isIn(200, 204);
    OBJECTS.remove(name);
  }

  private static List<Node> ranked(ClusterMap map, String name) {
    return map.placement().ranked(PlacementKey.digest(Bucket.local(BUCKET), name), D + P + 1);
  }

  @Test
  @Order(1)
  void putObjects_areEncodedByTheirOwners() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> puts = new ArrayList<>();
      for (String name : OBJECTS.keySet()) {
        puts.add(pool.submit(() -> {
          byte[] data = content(name);
          Http.Reply r = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(url(name)))
              .PUT(HttpRequest.BodyPublishers.ofByteArray(data)));
          assertThat(r.status()).as("PUT %s: %s", name, r.bodyText()).isEqualTo(200);
          synchronized (SHA) {
            SHA.put(name, Http.sha256(data));
          }
          return null;
        }));
      }
      for (Future<?> f : puts) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
    long small = OBJECTS.values().stream().filter(o -> o[0] < LIMIT).count();
    await().atMost(WAIT).pollInterval(Duration.ofMillis(300)).until(() ->
        sum("granary_ec_objects_encoded_total") + sum("granary_ec_objects_replicated_total") >= OBJECTS.size()
            && sum("granary_ec_queue_depth") == 0);
    assertThat(sum("granary_ec_objects_replicated_total")).isEqualTo(small);
    assertThat(sum("granary_ec_objects_encoded_total")).isEqualTo(OBJECTS.size() - small);
    assertThat(sum("granary_ec_slices_held")).isEqualTo(small * P + (OBJECTS.size() - small) * (D + P));

    // Each holder has what HRW says: slice k on the k-th target after the owner, replicas on the first P.
    ClusterMap map = cluster.map();
    String big = OBJECTS.keySet().stream().filter(n -> OBJECTS.get(n)[0] >= LIMIT).findFirst().orElseThrow();
    List<Node> holders = ranked(map, big).subList(1, D + P + 1);
    for (int k = 0; k < D + P; k++) {
      JsonNode recs = records(holders.get(k).id(), big);
      assertThat(recs).hasSize(1);
      assertThat(recs.get(0).path("index").asInt()).isEqualTo(k);
      assertThat(recs.get(0).path("objectSize").asLong()).isEqualTo(OBJECTS.get(big)[0]);
    }
    // Slices are not objects: the listing holds exactly what was PUT.
    Http.Reply list = Http.get(cluster.endpoint() + "/v1/buckets/" + BUCKET + "?limit=1000");
    assertThat(list.status()).isEqualTo(200);
    JsonNode entries = ClusterJson.mapper().readTree(list.body()).path("entries");
    Set<String> listed = new TreeSet<>();
    entries.forEach(e -> listed.add(e.path("name").asText()));
    assertThat(listed).isEqualTo(new TreeSet<>(OBJECTS.keySet()));
  }

  /** The slices the owner's encoded marks under a mountpath's {@code ec/} tree name (one per holder). */
  private static long markedSlices(Path mountpath) throws Exception {
    Path ec = mountpath.resolve("ec");
    if (!Files.isDirectory(ec)) {
      return 0;
    }
    long n = 0;
    try (Stream<Path> walk = Files.walk(ec)) {
      for (Path p : walk.filter(f -> f.getFileName().toString().endsWith(".encoded")).toList()) {
        String[] lines = Files.readString(p).split("\n", 2);
        n += lines.length < 2 || lines[1].isBlank() ? 0 : lines[1].trim().split(",").length;
      }
    }
    return n;
  }

  /** Slice files ({@code *.slice}) under a mountpath's {@code ec/} tree. */
  private static long sliceFiles(Path mountpath) throws Exception {
    Path ec = mountpath.resolve("ec");
    if (!Files.isDirectory(ec)) {
      return 0;
    }
    try (Stream<Path> walk = Files.walk(ec)) {
      return walk.filter(p -> p.getFileName().toString().endsWith(".slice")).count();
    }
  }

  @Test
  @Order(2)
  void holderLosesAMountpath_ownersFindItsSlicesMissing_andSendThemAgain() throws Exception {
    long small = OBJECTS.values().stream().filter(o -> o[0] < LIMIT).count();
    long expected = small * P + (OBJECTS.size() - small) * (D + P);
    // The target and mountpath holding the most slices: detached, what it held is gone from the target's view.
    String mostId = null;
    Path most = null;
    long mostSlices = -1;
    for (String id : cluster.targetIds()) {
      for (Path mp : cluster.mountpaths(id)) {
        long n = sliceFiles(mp);
        if (n > mostSlices) {
          mostId = id;
          most = mp;
          mostSlices = n;
        }
      }
    }
    String holder = mostId;
    Path lost = most;
    long lostSlices = mostSlices;
    assertThat(lostSlices).isPositive();
    double missing = sum("granary_ec_slices_missing_total");
    double audits = sum("granary_ec_audits_total");
    double sent = sum("granary_ec_slices_sent_total");
    double resent = sum("granary_ec_objects_resent_total");
    long marked = markedSlices(lost); // the holder's own objects marked there are encoded whole again
    String mountpaths = cluster.endpoint() + "/v1/cluster/nodes/" + holder + "/mountpaths";
    Http.Reply detach = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(mountpaths + "/"
        + java.net.URLEncoder.encode(lost.toAbsolutePath().normalize().toString(),
            java.nio.charset.StandardCharsets.UTF_8) + "?mode=detach")).DELETE());
    assertThat(detach.status()).as(detach.bodyText()).isEqualTo(200);
    String gone = lost.toAbsolutePath().normalize().toString();
    await().atMost(WAIT).pollInterval(Duration.ofMillis(300)).until(() -> {
      Http.Reply r = Http.get(mountpaths);
      return r.status() == 200 && !r.bodyText().contains("\"" + gone + "\"");
    });

    // Every owner audits (the holder asked them), finds the slices missing and encodes those objects again.
    await().atMost(WAIT).pollInterval(Duration.ofMillis(300)).until(() ->
        sum("granary_ec_slices_missing_total") >= missing + lostSlices
            && sum("granary_ec_audits_total") > audits
            && sum("granary_ec_queue_depth") == 0
            && sum("granary_ec_slices_held") == expected
            && sum("granary_ec_slices_sent_total") >= sent + lostSlices + marked);
    assertThat(sum("granary_ec_slices_missing_total")).as("only what the mountpath held was missing")
        .isEqualTo(missing + lostSlices);
    assertThat(sum("granary_ec_slices_sent_total")).as("only the missing slices were sent, not all D+P of their "
        + "objects (and the holder's own objects whose marks it held, whole)").isEqualTo(sent + lostSlices + marked);
    assertThat(sum("granary_ec_objects_resent_total")).as("one slice per object held there").isEqualTo(resent
        + lostSlices);
    ClusterMap map = cluster.map();
    for (String name : OBJECTS.keySet()) {
      boolean replicas = OBJECTS.get(name)[0] < LIMIT;
      List<String> holders = ranked(map, name).subList(1, 1 + (replicas ? P : D + P)).stream().map(Node::id)
          .toList();
      int k = holders.indexOf(holder);
      if (k >= 0) {
        JsonNode recs = records(holder, name);
        assertThat(recs).as("%s holds its slice of %s again", holder, name).hasSize(1);
        assertThat(recs.get(0).path("index").asInt()).isEqualTo(replicas ? -1 : k);
      }
    }
    assertThat(sliceFiles(lost)).as("the detached mountpath is not written to").isEqualTo(lostSlices);
    // Its disk is taken away: later tests find each slice once.
    try (Stream<Path> walk = Files.walk(lost.resolve("ec"))) {
      for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
    // An object rebuilt from slices, the one sent again among them: its main copy deleted, the GET rebuilds it.
    String big = OBJECTS.keySet().stream().filter(n -> OBJECTS.get(n)[0] >= LIMIT)
        .filter(n -> ranked(map, n).subList(1, 1 + D).stream().anyMatch(h -> h.id().equals(holder)))
        .findFirst().orElseThrow();
    List<Path> main = mainFiles(ranked(map, big).get(0).id(), big);
    assertThat(main).hasSize(1);
    Files.delete(main.get(0));
    assertExact(big);
  }

  /** The object's main file on its owner's mountpaths (objects/.../SHA256(name)). */
  private static List<Path> mainFiles(String owner, String name) throws Exception {
    String hex = java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
        .digest(name.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    List<Path> out = new ArrayList<>();
    for (Path mp : cluster.mountpaths(owner)) {
      Path objects = mp.resolve("objects");
      if (Files.isDirectory(objects)) {
        try (Stream<Path> walk = Files.walk(objects)) {
          walk.filter(p -> p.getFileName().toString().equals(hex)).forEach(out::add);
        }
      }
    }
    return out;
  }

  @Test
  @Order(3)
  void mainFileDeletedOnDisk_isRebuiltByTheNextGet_andRestored() throws Exception {
    ClusterMap map = cluster.map();
    String big = OBJECTS.keySet().stream().filter(n -> OBJECTS.get(n)[0] > (1 << 20)).findFirst().orElseThrow();
    String small = OBJECTS.keySet().stream().filter(n -> OBJECTS.get(n)[0] > 0 && OBJECTS.get(n)[0] < LIMIT)
        .findFirst().orElseThrow();
    double before = sum("granary_ec_rebuilds_total");
    for (String name : List.of(big, small)) {
      String owner = ranked(map, name).get(0).id();
      List<Path> files = mainFiles(owner, name);
      assertThat(files).as(name).hasSize(1);
      Files.delete(files.get(0));
      assertExact(name);
      assertThat(mainFiles(owner, name)).as("main copy of %s restored", name).hasSize(1);
      assertThat(Files.size(mainFiles(owner, name).get(0))).isEqualTo(OBJECTS.get(name)[0]);
      assertExact(name);
    }
    assertThat(sum("granary_ec_rebuilds_total")).isEqualTo(before + 2);
  }

  /** The file of slice {@code index} of {@code name}, wherever it is held. */
  private static Path sliceFile(String name, int index) throws Exception {
    String hex = java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
        .digest(name.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    List<Path> out = new ArrayList<>();
    for (String id : cluster.targetIds()) {
      for (Path mp : cluster.mountpaths(id)) {
        Path ec = mp.resolve("ec");
        if (Files.isDirectory(ec)) {
          try (Stream<Path> walk = Files.walk(ec)) {
            walk.filter(p -> p.getParent().getFileName().toString().equals(hex)
                && p.getFileName().toString().endsWith("." + index + ".slice")).forEach(out::add);
          }
        }
      }
    }
    assertThat(out).as("slice %d of %s", index, name).hasSize(1);
    return out.get(0);
  }

  @Test
  @Order(4)
  void lostMainCopy_withACorruptSlice_isCutShortOrExactNeverWhollyWrong_andRebuiltWithoutTheBadSlice()
      throws Exception {
    ClusterMap map = cluster.map();
    String name = OBJECTS.keySet().stream().filter(n -> OBJECTS.get(n)[0] > (3 << 20)).findFirst().orElseThrow();
    long size = OBJECTS.get(name)[0];
    String owner = ranked(map, name).get(0).id();
    Path slice = sliceFile(name, 0);
    byte[] intact = Files.readAllBytes(slice);
    flip(slice, intact.length / 2);
    Files.delete(mainFiles(owner, name).get(0));
    double rebuilds = sum("granary_ec_rebuilds_total");

    Http.Reply r;
    try {
      r = get(name);
    } catch (java.io.IOException cut) {
      r = null; // cut short: the client saw the connection closed before the last byte
    }
    if (r != null) {
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.length() < size || r.sha256().equals(SHA.get(name))).as("GET %s cut short or exact", name)
          .isTrue();
    }
    // The rebuild went on from the other slices: the main copy is back, and so is the intact slice (encoded anew).
    await().atMost(WAIT).pollInterval(Duration.ofMillis(200))
        .until(() -> sum("granary_ec_rebuilds_total") >= rebuilds + 1);
    assertExact(name);
    assertThat(mainFiles(owner, name)).hasSize(1);
    assertThat(Files.size(mainFiles(owner, name).get(0))).isEqualTo(size);
    await().atMost(WAIT).pollInterval(Duration.ofMillis(200))
        .until(() -> java.util.Arrays.equals(Files.readAllBytes(sliceFile(name, 0)), intact));
    assertThat(sum("granary_ec_rebuilds_total")).isEqualTo(rebuilds + 1);
  }

  @Test
  @Order(5)
  void delete_removesTheSlicesOnTheirHolders() throws Exception {
    ClusterMap map = cluster.map();
    String name = sliced(3);
    List<Node> holders = ranked(map, name).subList(1, D + P + 1);
    for (Node h : holders) {
      assertThat(records(h.id(), name)).as("slice on %s", h.id()).hasSize(1);
    }
    delete(name);
    await().atMost(WAIT).untilAsserted(() -> {
      for (Node h : holders) {
        assertThat(records(h.id(), name)).as("slices left on %s", h.id()).isEmpty();
      }
    });
    assertThat(get(name).status()).isEqualTo(404);
  }

  @Test
  @Order(6)
  void overwrite_replacesTheSlicesOfTheOlderVersion() throws Exception {
    ClusterMap map = cluster.map();
    String name = sliced(5);
    List<Node> holders = ranked(map, name).subList(1, D + P + 1);
    String before = records(holders.get(0).id(), name).get(0).path("version").asText();
    double encoded = sum("granary_ec_objects_encoded_total");
    OBJECTS.put(name, new long[] {(2 << 20) + 12345, 77});
    byte[] data = content(name);
    Http.Reply put = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(url(name)))
        .PUT(HttpRequest.BodyPublishers.ofByteArray(data)));
    assertThat(put.status()).isEqualTo(200);
    SHA.put(name, Http.sha256(data));
    await().atMost(WAIT).until(() -> sum("granary_ec_objects_encoded_total") > encoded);
    for (int k = 0; k < D + P; k++) {
      JsonNode recs = records(holders.get(k).id(), name);
      assertThat(recs).as("only the new version on %s", holders.get(k).id()).hasSize(1);
      assertThat(recs.get(0).path("version").asText()).isNotEqualTo(before);
      assertThat(recs.get(0).path("objectSize").asLong()).isEqualTo(data.length);
    }
    assertExact(name);
  }

  /** Flips every bit of the byte at {@code at}: same size, only a checksum notices. */
  /** Starts a scrub of {@code bucket} through the proxy and waits for it to succeed; its status. */
  private static JsonNode scrub(String bucket) throws Exception {
    Http.Reply started = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(cluster.endpoint() + "/v1/jobs"))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{\"kind\":\"scrub\",\"bucket\":\"" + bucket + "\"}")));
    assertThat(started.status()).as(started.bodyText()).isIn(200, 201, 202);
    JsonNode[] job = {null};
    await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> {
      job[0] = ClusterJson.mapper().readTree(Http.get(cluster.endpoint() + "/v1/jobs/scrub-ais." + bucket).body());
      return job[0].path("state").asText().equals("succeeded");
    });
    return job[0];
  }

  private static void flip(Path file, long at) throws Exception {
    try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file,
        java.nio.file.StandardOpenOption.READ, java.nio.file.StandardOpenOption.WRITE)) {
      java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(1);
      ch.read(b, at);
      b.put(0, (byte) ~b.get(0));
      ch.write(b.rewind(), at);
    }
  }

  @Test
  @Order(8)
  void rottenSlice_isFoundByAScrub_removed_andSentAgainByItsOwner() throws Exception {
    String name = sliced(9);
    Path file = sliceFile(name, 1);
    byte[] intact = Files.readAllBytes(file);
    flip(file, intact.length / 2);
    double corrupt = sum("granary_ec_slices_corrupt_total");
    double missing = sum("granary_ec_slices_missing_total");
    double sent = sum("granary_ec_slices_sent_total");

    scrub(BUCKET);
    // The holder re-hashes its slices with the scrub, removes the rotten one and asks the owner, which sends it.
    long small = OBJECTS.values().stream().filter(o -> o[0] < LIMIT).count();
    long held = small * P + (OBJECTS.size() - small) * (D + P);
    await().atMost(WAIT).pollInterval(Duration.ofMillis(300)).until(() ->
        sum("granary_ec_slices_corrupt_total") >= corrupt + 1 && sum("granary_ec_slices_missing_total") >= missing + 1
            && sum("granary_ec_queue_depth") == 0 && sum("granary_ec_slices_held") == held
            && sum("granary_ec_slices_sent_total") >= sent + 1);
    assertThat(sum("granary_ec_slices_corrupt_total")).as("only the rotten slice").isEqualTo(corrupt + 1);
    assertThat(sum("granary_ec_slices_sent_total")).as("only that slice was sent").isEqualTo(sent + 1);
    assertThat(Files.readAllBytes(sliceFile(name, 1))).as("slice 1 of %s sent again", name).isEqualTo(intact);
    // Rebuilt with that slice among the first D: the owner's main copy deleted, the GET is byte-exact.
    List<Path> main = mainFiles(ranked(cluster.map(), name).get(0).id(), name);
    assertThat(main).hasSize(1);
    Files.delete(main.get(0));
    assertExact(name);
  }

  private static Path onlyMainFile(ClusterMap map, String bucket, String name) throws Exception {
    List<Path> files = mainFiles(map.placement().ranked(PlacementKey.digest(Bucket.local(bucket), name), 1).get(0)
        .id(), name);
    assertThat(files).as("main file of %s", name).hasSize(1);
    return files.get(0);
  }

  @Test
  @Order(7)
  void corruptMainCopy_withValidation_isRebuiltFromSlices_byGetAndByScrub() throws Exception {
    String bucket = "coded-verified";
    Http.Reply created = cluster.createBucket(bucket, "{\"protection\":{\"ec.data\":" + D + ",\"ec.parity\":" + P
        + ",\"ec.objSizeLimit\":" + LIMIT + ",\"checksum.validateWarmGet\":true}}");
    assertThat(created.status()).as(created.bodyText()).isEqualTo(201);
    Map<String, byte[]> bodies = new LinkedHashMap<>();
    bodies.put("verified/small", Content.bytes(31, 300_000)); // sliced, hashed before it is sent
    bodies.put("verified/large", Content.bytes(32, 3 << 20)); // streamed while hashed
    bodies.put("verified/replica", Content.bytes(33, 100_000)); // below the limit: replicas
    bodies.put("verified/scrub", Content.bytes(34, 500_000));
    double done = sum("granary_ec_objects_encoded_total") + sum("granary_ec_objects_replicated_total");
    double held = sum("granary_ec_slices_held");
    for (var e : bodies.entrySet()) {
      Http.Reply r = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(), bucket,
          e.getKey()))).PUT(HttpRequest.BodyPublishers.ofByteArray(e.getValue())));
      assertThat(r.status()).as(r.bodyText()).isEqualTo(200);
    }
    await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> sum("granary_ec_objects_encoded_total")
        + sum("granary_ec_objects_replicated_total") >= done + bodies.size() && sum("granary_ec_queue_depth") == 0);
    ClusterMap map = cluster.map();
    String ec = "granary_validation_repairs_total{from=\"ec\"}";
    double repairs = sum(ec);
    for (String name : List.of("verified/small", "verified/large", "verified/replica")) {
      flip(onlyMainFile(map, bucket, name), bodies.get(name).length / 2);
    }
    for (String name : List.of("verified/small", "verified/replica", "verified/large")) {
      String u = Names.url(cluster.endpoint(), bucket, name);
      Http.Reply r;
      try {
        r = Http.sendHashing(Http.FOLLOW, HttpRequest.newBuilder(URI.create(u)).GET());
      } catch (java.io.IOException cut) {
        r = new Http.Reply(200, Map.of(), null, "", 0); // cut short: the client saw the connection closed early
      }
      if (!name.equals("verified/large")) { // hashed first: the rebuilt copy is served at once
        assertThat(r.status()).as("GET %s", name).isEqualTo(200);
        assertThat(r.sha256()).as(name).isEqualTo(Http.sha256(bodies.get(name)));
      } else { // streamed: cut short (or whole and correct, never whole and wrong); the next GET is correct
        assertThat(r.length() < bodies.get(name).length || r.sha256().equals(Http.sha256(bodies.get(name))))
            .as("GET %s cut short or correct", name).isTrue();
        await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> sum(ec) >= repairs + 3);
        Http.Reply again = Http.sendHashing(Http.FOLLOW, HttpRequest.newBuilder(URI.create(u)).GET());
        assertThat(again.status()).isEqualTo(200);
        assertThat(again.sha256()).as(name).isEqualTo(Http.sha256(bodies.get(name)));
      }
      assertThat(Files.readAllBytes(onlyMainFile(map, bucket, name))).as("main file of %s", name)
          .isEqualTo(bodies.get(name));
    }
    assertThat(sum(ec)).isEqualTo(repairs + 3);

    // A scrub finds another corrupt main copy and rebuilds it from its slices.
    flip(onlyMainFile(map, bucket, "verified/scrub"), 4321);
    JsonNode job = scrub(bucket);
    assertThat(job.path("objects").asLong()).isEqualTo(bodies.size());
    assertThat(job.path("corrupt").asLong()).isEqualTo(1);
    assertThat(job.path("repaired").asLong()).isEqualTo(1);
    assertThat(job.path("unrepairable").asLong()).isZero();
    assertThat(sum(ec)).isEqualTo(repairs + 4);
    assertThat(Files.readAllBytes(onlyMainFile(map, bucket, "verified/scrub"))).isEqualTo(bodies.get("verified/scrub"));
    Http.Reply r = Http.sendHashing(Http.FOLLOW, HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(),
        bucket, "verified/scrub"))).GET());
    assertThat(r.sha256()).isEqualTo(Http.sha256(bodies.get("verified/scrub")));

    // Gone again, slices and all: the phases after count the slices of the first bucket only.
    await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> sum("granary_ec_queue_depth") == 0);
    for (String name : bodies.keySet()) {
      Http.Reply del = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(), bucket,
          name))).DELETE());
      assertThat(del.status()).isIn(200, 204);
    }
    await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> sum("granary_ec_slices_held") == held);
  }

  private static void kill(String id) throws Exception {
    cluster.local().kill(id);
    killed.add(id);
    await().atMost(WAIT).pollInterval(Duration.ofMillis(250)).until(() ->
        cluster.map().targets().get(id).state() == NodeState.OFFLINE);
  }

  @Test
  @Order(9)
  void twoTargetsKilled_everyObjectReadsByteExact() throws Exception {
    kill("t2");
    kill("t5");
    double streamed = sum("granary_ec_rebuild_reads_streamed_total");
    for (String name : OBJECTS.keySet()) {
      assertExact(name);
    }
    assertThat(sum("granary_ec_rebuilds_total")).isPositive();
    assertThat(sum("granary_ec_rebuild_reads_streamed_total")).as("offline owners' objects streamed as rebuilt")
        .isGreaterThan(streamed);
    // The S3 API reads through the same path: an offline owner's sliced object, rebuilt by a holder
    ClusterMap map = cluster.map();
    String name = OBJECTS.keySet().stream().filter(n -> OBJECTS.get(n)[0] > (1 << 20))
        .filter(n -> killed.contains(ranked(map, n).get(0).id())).findFirst().orElseThrow();
    // A range of it: rebuilt for that read alone, the bytes asked for.
    Http.Reply range = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(url(name)))
        .header("Range", "bytes=1000-300999").GET());
    assertThat(range.status()).as(range.bodyText()).isEqualTo(206);
    assertThat(range.body()).isEqualTo(java.util.Arrays.copyOfRange(content(name), 1000, 301000));
    try (S3Client s3 = S3Client.builder().endpointOverride(URI.create(cluster.endpoint())).region(Region.US_EAST_1)
        .forcePathStyle(true).credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(
            cluster.credentials().accessKey(), cluster.credentials().secretKey()))).build()) {
      byte[] got = s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(name)).asByteArray();
      assertThat(Http.sha256(got)).as("S3 GET of %s", name).isEqualTo(SHA.get(name));
    }
  }

  @Test
  @Order(10)
  void thirdTargetKilled_unrebuildableObjectsAre503_neverWrongBytes() throws Exception {
    ClusterMap map = cluster.map();
    // A small object whose owner and one replica holder are dead: killing its other replica holder loses it.
    String lost = null;
    String third = null;
    for (String name : OBJECTS.keySet()) {
      long size = OBJECTS.get(name)[0];
      List<Node> r = ranked(map, name);
      if (size < LIMIT && killed.contains(r.get(0).id())) {
        boolean firstDead = killed.contains(r.get(1).id());
        boolean secondDead = killed.contains(r.get(2).id());
        if (firstDead != secondDead) {
          lost = name;
          third = firstDead ? r.get(2).id() : r.get(1).id();
          break;
        }
      }
    }
    assertThat(lost).as("a small object of a dead owner with one replica on a dead target").isNotNull();
    kill(third);
    Http.Reply r = get(lost);
    assertThat(r.status()).isEqualTo(503);
    int unavailable = 0;
    for (String name : OBJECTS.keySet()) {
      Http.Reply g = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(url(name))).GET());
      if (g.status() == 503) {
        unavailable++;
        String code = ClusterJson.mapper().readTree(g.body()).path("code").asText();
        assertThat(code).as(name).isIn("NotEnoughSlices", "TargetOffline");
        continue;
      }
      assertThat(g.status()).as("GET %s: %s", name, g.bodyText()).isEqualTo(200);
      assertThat(Http.sha256(g.body())).as(name).isEqualTo(SHA.get(name));
    }
    Http.Reply again = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(url(lost))).GET());
    assertThat(ClusterJson.mapper().readTree(again.body()).path("code").asText()).isEqualTo("NotEnoughSlices");
    assertThat(unavailable).isPositive();
  }

  @Test
  @Order(11)
  void restarted_everyObjectReadsAgain_andNoOrphanSliceIsLeft() throws Exception {
    ClusterMap map = cluster.map();
    // Deleted while one of its holders is down: that holder keeps an orphan until it is back and sweeps.
    String name = OBJECTS.keySet().stream().filter(n -> OBJECTS.get(n)[0] >= LIMIT)
        .filter(n -> !killed.contains(ranked(map, n).get(0).id()))
        .filter(n -> ranked(map, n).subList(1, D + P + 1).stream().anyMatch(h -> killed.contains(h.id())))
        .findFirst().orElseThrow();
    delete(name);
    List<String> back = List.copyOf(killed);
    for (String id : back) {
      cluster.local().restart(id);
    }
    for (String id : back) {
      await().atMost(WAIT).pollInterval(Duration.ofMillis(250)).ignoreExceptions().until(() ->
          cluster.map().targets().get(id).state() == NodeState.ACTIVE);
      killed.remove(id);
    }
    await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
      for (Node h : ranked(map, name)) {
        assertThat(records(h.id(), name)).as("slices of the deleted object left on %s", h.id()).isEmpty();
      }
    });
    long small = OBJECTS.values().stream().filter(o -> o[0] < LIMIT).count();
    await().atMost(WAIT).untilAsserted(() -> assertThat(sum("granary_ec_slices_held"))
        .isEqualTo(small * P + (OBJECTS.size() - small) * (D + P)));
    for (String o : OBJECTS.keySet()) {
      assertExact(o);
    }
  }
  /** A metric of one target, summed over its label sets ({@code name{label="v"}}: those with that label). */
  private static double metric(String id, String metric) throws Exception {
    int brace = metric.indexOf('{');
    String name = brace < 0 ? metric : metric.substring(0, brace);
    String label = brace < 0 ? "" : metric.substring(brace + 1, metric.length() - 1);
    double total = 0;
    for (String line : Http.get(cluster.targetUrl(id) + "/metrics").bodyText().split("\n")) {
      if ((line.startsWith(name + " ") || line.startsWith(name + "{")) && line.contains(label)) {
        total += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return total;
  }

  /**
   * kill -9 of an owner while its encodes are under way: large objects it owns are PUT at once (its two encode
   * workers cannot keep up) and it is killed as soon as every PUT is acknowledged. After its restart the walk at
   * start encodes what was left: every object is whole, its slices on exactly its holders, and a scrub finds nothing.
   */
  @Test
  @Order(12)
  void ownerKilledWhileEncoding_afterRestartEveryObjectIsWholeAndEncoded_andAScrubFindsNothing() throws Exception {
    ClusterMap map = cluster.map();
    String owner = "t4";
    List<String> names = new ArrayList<>();
    for (int i = 0; names.size() < 6; i++) {
      String n = "mid-encode/" + i;
      if (ranked(map, n).get(0).id().equals(owner)) {
        names.add(n);
        OBJECTS.put(n, new long[] {(8 << 20) + 4096L * i, 5000 + i});
      }
    }
    ExecutorService pool = Executors.newFixedThreadPool(names.size());
    try {
      List<Future<?>> puts = new ArrayList<>();
      for (String n : names) {
        puts.add(pool.submit(() -> {
          byte[] data = content(n);
          Http.Reply r = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(url(n)))
              .PUT(HttpRequest.BodyPublishers.ofByteArray(data)));
          assertThat(r.status()).as("PUT %s: %s", n, r.bodyText()).isEqualTo(200);
          synchronized (SHA) {
            SHA.put(n, Http.sha256(data));
          }
          return null;
        }));
      }
      for (Future<?> f : puts) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
    double queued = metric(owner, "granary_ec_queue_depth");
    cluster.local().kill(owner);
    System.out.printf("EcIT: %s killed with %.0f objects waiting to be encoded or being encoded%n", owner, queued);
    cluster.local().restart(owner);
    await().atMost(WAIT).pollInterval(Duration.ofMillis(250)).ignoreExceptions().until(() ->
        cluster.map().targets().get(owner).state() == NodeState.ACTIVE);
    await().atMost(WAIT).pollInterval(Duration.ofMillis(300)).ignoreExceptions().untilAsserted(() -> {
      assertThat(sum("granary_ec_queue_depth")).isZero();
      for (String n : names) {
        List<Node> holders = ranked(map, n).subList(1, D + P + 1);
        for (int k = 0; k < D + P; k++) {
          JsonNode recs = records(holders.get(k).id(), n);
          assertThat(recs).as("slices of %s on %s", n, holders.get(k).id()).hasSize(1);
          assertThat(recs.get(0).path("index").asInt()).isEqualTo(k);
        }
      }
    });
    for (String n : names) {
      assertExact(n); // acknowledged before the kill: whole after it
    }
    long small = OBJECTS.values().stream().filter(o -> o[0] < LIMIT).count();
    await().atMost(WAIT).untilAsserted(() -> assertThat(sum("granary_ec_slices_held"))
        .isEqualTo(small * P + (OBJECTS.size() - small) * (D + P)));
    JsonNode job = scrub(BUCKET);
    assertThat(job.path("objects").asLong()).isEqualTo(OBJECTS.size());
    assertThat(job.path("corrupt").asLong()).isZero();
    assertThat(job.path("unrepairable").asLong()).isZero();
  }

  /**
   * The owner killed (kill -9) while it rebuilds lost main copies: its GETs are streaming them (a 200 head with the
   * last byte held back is a rebuild not yet committed) when it dies. After its restart nothing is torn: no work
   * file is left, a scrub restores the copies still missing from the slices, and every object reads byte-exact.
   */
  @Test
  @Order(13)
  void ownerKilledWhileRebuilding_afterRestartNothingIsTorn_andAScrubRestoresWhatIsMissing() throws Exception {
    ClusterMap map = cluster.map();
    String owner = "t4";
    List<String> names = OBJECTS.keySet().stream().filter(n -> OBJECTS.get(n)[0] >= (1 << 20)
        && ranked(map, n).get(0).id().equals(owner)).limit(6).toList();
    assertThat(names).hasSizeGreaterThanOrEqualTo(4);
    for (String n : names) {
      Files.delete(mainFiles(owner, n).get(0));
    }
    List<java.util.concurrent.CompletableFuture<java.net.http.HttpResponse<java.io.InputStream>>> gets =
        new ArrayList<>();
    for (String n : names) {
      HttpRequest get = HttpRequest.newBuilder(URI.create(url(n))).timeout(WAIT).GET().build();
      gets.add(java.util.concurrent.CompletableFuture.supplyAsync(() -> {
        try {
          return Http.sendFollowing(get, java.net.http.HttpResponse.BodyHandlers.ofInputStream());
        } catch (java.io.IOException | InterruptedException e) {
          throw new java.util.concurrent.CompletionException(e);
        }
      }, task -> new Thread(task, "ec-get-" + n).start())); // all at once, as the rebuilds must overlap
    }
    java.net.http.HttpResponse<java.io.InputStream> first = gets.get(0).get();
    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(first.body().read()).as("the first byte of a rebuild in progress").isNotNegative();
    cluster.local().kill(owner);
    for (var g : gets) {
      try (java.io.InputStream in = g.get().body()) {
        in.transferTo(java.io.OutputStream.nullOutputStream()); // whole (rebuilt before the kill) or cut short
      } catch (java.io.IOException | java.util.concurrent.ExecutionException cut) {
        // the owner died under it
      }
    }
    List<Path> torn = new ArrayList<>(); // what the dead process was writing: rebuilds, encodes
    for (Path mp : cluster.mountpaths(owner)) {
      try (Stream<Path> work = Files.list(mp.resolve("work"))) {
        work.forEach(torn::add);
      }
    }
    cluster.local().restart(owner);
    await().atMost(WAIT).pollInterval(Duration.ofMillis(250)).ignoreExceptions().until(() ->
        Http.get(cluster.targetUrl(owner) + "/v1/health/ready").status() == 200
            && cluster.map().targets().get(owner).state() == NodeState.ACTIVE);
    assertThat(torn).as("the killed process's work files, removed at restart").noneMatch(Files::exists);
    long missing = 0;
    for (String n : names) {
      List<Path> files = mainFiles(owner, n);
      if (files.isEmpty()) {
        missing++;
      } else {
        assertThat(files).hasSize(1);
        assertThat(Files.size(files.get(0))).as("restored before the kill: whole").isEqualTo(OBJECTS.get(n)[0]);
      }
    }
    System.out.printf("EcIT: %s killed while rebuilding with %d work files; %d of %d main copies still missing "
        + "after its restart%n", owner, torn.size(), missing, names.size());
    await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> sum("granary_ec_queue_depth") == 0);
    JsonNode job = scrub(BUCKET);
    assertThat(job.path("unrepairable").asLong()).isZero();
    assertThat(job.path("repaired").asLong()).as("the copies still missing").isEqualTo(missing);
    for (String n : names) {
      assertThat(mainFiles(owner, n)).as("main copy of %s", n).hasSize(1);
      assertExact(n);
    }
  }

  @Test
  @Order(14)
  void targetJoinsThenOneIsDecommissioned_slicesFollowTheirHolders_twoKilledStillReadByteExact() throws Exception {
    ClusterMap before = cluster.map();
    double reencoded = sum("granary_ec_objects_reencoded_total");
    Map<String, Double> walks = placementWalks();
    String added = cluster.local().addTarget(List.of());
    ClusterMap joined = awaitPlaced(before, walks);
    assertThat(sum("granary_ec_objects_reencoded_total")).as("objects whose holders changed were sent again")
        .isGreaterThan(reencoded);
    assertSlicesPlaced(before, joined);

    // A target leaves: its objects go to new owners, which encode them; its slices are sent to the next holders.
    String leaving = "t3";
    walks = placementWalks();
    walks.remove(leaving);
    GranaryCli.Result set = GranaryCli.run(Duration.ofSeconds(100), "cluster", "set-state", leaving,
        "decommissioned", "--endpoint", cluster.endpoint());
    assertThat(set.exit()).as(set.all()).isZero();
    GranaryCli.Result safe = GranaryCli.run(Duration.ofSeconds(120), "cluster", "node", leaving, "--wait-safe",
        "--timeout", "110s", "--endpoint", cluster.endpoint());
    assertThat(safe.exit()).as(safe.all()).isZero();
    killed.add(leaving); // out of the map: its counters no longer count
    ClusterMap left = awaitPlaced(joined, walks);
    assertThat(left.targets()).doesNotContainKey(leaving);
    assertSlicesPlaced(joined, left);

    // Protection holds under the new shape: two targets killed, the new one among them, every object reads.
    kill(added);
    kill(left.targets().keySet().stream().filter(id -> !id.equals(added)).findFirst().orElseThrow());
    for (String name : OBJECTS.keySet()) {
      assertExact(name);
    }
  }

  private static Map<String, Double> placementWalks() throws Exception {
    Map<String, Double> walks = new LinkedHashMap<>();
    for (String id : cluster.targetIds()) {
      if (!killed.contains(id)) {
        walks.put(id, metric(id, "granary_ec_placement_walks_total"));
      }
    }
    return walks;
  }

  /**
   * Waits for the rebalance after {@code before} to finish, then for every target in {@code walks} to have walked
   * its buckets for the settled placement and every encode to be done; the map then.
   */
  private static ClusterMap awaitPlaced(ClusterMap before, Map<String, Double> walks) throws Exception {
    long prev = before.rebalance() == null ? 0 : before.rebalance().id();
    await().atMost(WAIT).pollInterval(Duration.ofMillis(250)).until(() -> {
      ClusterMap m = cluster.map();
      return m.rebalance() != null && m.rebalance().id() > prev && m.settled();
    });
    await().atMost(WAIT).pollInterval(Duration.ofMillis(300)).until(() -> {
      for (var e : walks.entrySet()) {
        if (metric(e.getKey(), "granary_ec_placement_walks_total") <= e.getValue()) {
          return false;
        }
      }
      return sum("granary_ec_queue_depth") == 0;
    });
    return cluster.map();
  }

  /**
   * Every object's slices (or replicas) are on exactly the holders {@code after} names, slice k on the k-th, and on
   * no other target of it; some objects' holders changed from {@code before}; the totals add up.
   */
  private static void assertSlicesPlaced(ClusterMap before, ClusterMap after) throws Exception {
    int moved = 0;
    for (String name : OBJECTS.keySet()) {
      boolean replicas = OBJECTS.get(name)[0] < LIMIT;
      int n = replicas ? P : D + P;
      List<String> expected = ranked(after, name).subList(1, 1 + n).stream().map(Node::id).toList();
      List<String> was = ranked(before, name).subList(1, 1 + n).stream().map(Node::id).toList();
      moved += expected.equals(was) ? 0 : 1;
      for (String id : after.targets().keySet()) {
        JsonNode recs = records(id, name);
        int k = expected.indexOf(id);
        if (k < 0) {
          assertThat(recs).as("%s holds no slice of %s (holders %s)", id, name, expected).isEmpty();
        } else {
          assertThat(recs).as("%s holds one slice of %s", id, name).hasSize(1);
          assertThat(recs.get(0).path("index").asInt()).as("slice index of %s on %s", name, id)
              .isEqualTo(replicas ? -1 : k);
        }
      }
    }
    assertThat(moved).as("objects whose holders the change moved").isPositive();
    long small = OBJECTS.values().stream().filter(o -> o[0] < LIMIT).count();
    assertThat(sum("granary_ec_slices_held")).isEqualTo(small * P + (OBJECTS.size() - small) * (D + P));
  }
}
