package io.granary.it.protection;

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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;

/**
 * N-way mirroring (docs/protection.md) on one target with three mountpaths and a bucket with {@code mirror.copies=2}:
 * objects PUT through the native API, the S3 API and one S3 multipart upload (0 B to a few MiB) get a second copy on
 * another mountpath; a main file deleted or made unreadable on disk is read from the copy, byte-exact, and restored;
 * a mountpath lost under the target leaves every object readable and the copy counts are restored on the two left;
 * changing mirror.copies runs the make-n-copies job; a joining target receives its objects by rebalance and makes
 * their copies there; DELETE removes every copy from disk. Phases run in order on the same objects.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MirrorIT {
  private static final String BUCKET = "mirrored";
  private static final String TARGET = "t1";
  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final Map<String, byte[]> OBJECTS = new LinkedHashMap<>(); // name -> content
  private static final String REMOTE = "mirror-remote"; // an S3 bucket (S3Proxy) whose cached copies are mirrored
  private static final int REMOTE_OBJECTS = 3;
  private static TestCluster cluster;
  private static S3Client s3;
  private static S3ProxyServer s3proxy;
  private static S3Client backend;
  private static Path mp1;
  private static Path mp2;
  private static Path mp3;
  private static List<Path> available;

  @BeforeAll
  static void start() throws Exception {
    Path work = Files.createTempDirectory("mirror-it");
    s3proxy = S3ProxyServer.start(work.resolve("s3proxy"));
    backend = RemoteBuckets.backendClient(s3proxy);
    backend.createBucket(b -> b.bucket(REMOTE));
    for (int i = 0; i < REMOTE_OBJECTS; i++) {
      int n = i;
      backend.putObject(b -> b.bucket(REMOTE).key("remote-" + n), RequestBody.fromBytes(remoteContent(n)));
    }
    cluster = TestCluster.start("mirror", 1);
    mp1 = cluster.mountpaths(TARGET).get(0).toAbsolutePath().normalize();
    mp2 = cluster.mountpaths(TARGET).get(1).toAbsolutePath().normalize();
    mp3 = mp1.resolveSibling("mp3");
    Http.Reply attached = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(mountpathsUrl()))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{\"path\":\"" + mp3 + "\"}")));
    assertThat(attached.status()).as(attached.bodyText()).isEqualTo(201);
    available = List.of(mp1, mp2, mp3);
    Http.Reply created = cluster.createBucket(BUCKET, "{\"protection\":{\"mirror.copies\":2}}");
    assertThat(created.status()).as(created.bodyText()).isEqualTo(201);
    Http.Reply reg = RemoteBuckets.register(cluster, "aws", REMOTE, RemoteBuckets.s3Props(s3proxy.endpoint(),
        s3proxy.writeCredentialsFile(work.resolve("credentials")), "never", false));
    assertThat(reg.status()).as(reg.bodyText()).isEqualTo(201);
    Http.Reply mirrored = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(cluster.endpoint()
        + "/v1/buckets/" + REMOTE + "?provider=aws")).header("Content-Type", "application/json")
        .method("PATCH", HttpRequest.BodyPublishers.ofString("{\"mirror.copies\":2}")));
    assertThat(mirrored.status()).as(mirrored.bodyText()).isEqualTo(200);
    s3 = S3Client.builder().endpointOverride(URI.create(cluster.endpoint())).region(Region.US_EAST_1)
        .forcePathStyle(true).credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(
            cluster.credentials().accessKey(), cluster.credentials().secretKey())))
        .build();
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(s3, backend, cluster, s3proxy);
  }

  private static String mountpathsUrl() {
    return cluster.endpoint() + "/v1/cluster/nodes/" + TARGET + "/mountpaths";
  }

  private static String url(String name) {
    return cluster.endpoint() + "/v1/objects/" + BUCKET + "/" + name;
  }

  private static byte[] remoteContent(int i) {
    return Content.bytes(900 + i, 20_000 + i * 150_000);
  }

  @Test
  @Order(1)
  void coldGets_ofAMirroredS3Bucket_fillTheCacheAndGetACopyEach() throws Exception {
    long made = metric("granary_mirror_copies_made_total");
    for (int i = 0; i < REMOTE_OBJECTS; i++) {
      Http.Reply r = RemoteBuckets.get(cluster, "aws", REMOTE, "remote-" + i, null);
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.body()).isEqualTo(remoteContent(i));
    }

    Awaitility.await().atMost(WAIT).pollInterval(Duration.ofMillis(100))
        .until(() -> metric("granary_mirror_copies_made_total") >= made + REMOTE_OBJECTS);
    Path bucketDir = mp1.resolve("objects").resolve("aws").resolve(REMOTE);
    String remoteId;
    try (Stream<Path> ids = Files.list(Files.exists(bucketDir) ? bucketDir
        : mp2.resolve("objects").resolve("aws").resolve(REMOTE))) {
      remoteId = ids.findFirst().orElseThrow().getFileName().toString();
    }
    for (int i = 0; i < REMOTE_OBJECTS; i++) {
      String h = sha256Hex("remote-" + i);
      long copies = available.stream().filter(mp -> Files.isRegularFile(mp.resolve("objects").resolve("aws")
          .resolve(REMOTE).resolve(remoteId).resolve(h.substring(0, 2)).resolve(h))).count();
      assertThat(copies).as("cached copies of remote-%d", i).isEqualTo(2);
    }
  }

  private static String sha256Hex(String s) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  @Order(2)
  void puts_nativeS3AndMultipart_eachGetASecondCopyOnAnotherMountpath() throws Exception {
    long made0 = metric("granary_mirror_copies_made_total");
    int[] sizes = {0, 1, 4096, 100_000, 1 << 20, 3 << 20};
    for (int i = 0; i < sizes.length; i++) {
      String name = "native/obj-" + i;
      byte[] body = Content.bytes(i, sizes[i]);
      Http.Reply r = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(url(name)))
          .PUT(HttpRequest.BodyPublishers.ofByteArray(body)));
      assertThat(r.status()).as(name).isEqualTo(200);
      OBJECTS.put(name, body);
    }
    for (int i = 0; i < 4; i++) {
      String name = "s3/obj-" + i;
      byte[] body = Content.bytes(100 + i, 7 + i * 300_000);
      s3.putObject(b -> b.bucket(BUCKET).key(name), RequestBody.fromBytes(body));
      OBJECTS.put(name, body);
    }
    String mpu = "s3/multipart";
    byte[] part1 = Content.bytes(200, 5 << 20);
    byte[] part2 = Content.bytes(201, 1 << 20);
    String id = s3.createMultipartUpload(b -> b.bucket(BUCKET).key(mpu)).uploadId();
    String e1 = s3.uploadPart(b -> b.bucket(BUCKET).key(mpu).uploadId(id).partNumber(1),
        RequestBody.fromBytes(part1)).eTag();
    String e2 = s3.uploadPart(b -> b.bucket(BUCKET).key(mpu).uploadId(id).partNumber(2),
        RequestBody.fromBytes(part2)).eTag();
    s3.completeMultipartUpload(b -> b.bucket(BUCKET).key(mpu).uploadId(id).multipartUpload(m -> m.parts(
        CompletedPart.builder().partNumber(1).eTag(e1).build(),
        CompletedPart.builder().partNumber(2).eTag(e2).build())));
    byte[] whole = new byte[part1.length + part2.length];
    System.arraycopy(part1, 0, whole, 0, part1.length);
    System.arraycopy(part2, 0, whole, part1.length, part2.length);
    OBJECTS.put(mpu, whole);

    Awaitility.await().atMost(WAIT).pollInterval(Duration.ofMillis(100))
        .until(() -> metric("granary_mirror_copies_made_total") >= made0 + OBJECTS.size());
    assertThat(metric("granary_mirror_copies_made_total")).isEqualTo(made0 + OBJECTS.size());
    assertThat(metric("granary_mirror_copy_failures_total")).isZero();
    assertThat(metric("granary_mirror_queue_depth")).isZero();
    String bucketId = bucketId();
    for (Map.Entry<String, byte[]> e : OBJECTS.entrySet()) {
      List<Path> holders = holders(bucketId, e.getKey(), available);
      assertThat(holders).as("mountpaths holding %s", e.getKey()).hasSize(2).doesNotHaveDuplicates()
          .contains(hrw(e.getKey(), available));
      for (Path mp : holders) {
        assertThat(Files.readAllBytes(file(mp, bucketId, e.getKey()))).as("%s on %s", e.getKey(), mp)
            .isEqualTo(e.getValue());
      }
    }
  }

  @Test
  @Order(3)
  void mainFileDeletedOrUnreadable_isReadFromTheCopy_byteExact_andRestored() throws Exception {
    String bucketId = bucketId();
    List<String> names = new ArrayList<>(OBJECTS.keySet());
    List<String> damaged = List.of(names.get(1), names.get(4), names.get(7), names.get(names.size() - 1));
    for (String n : damaged.subList(0, 3)) {
      Files.delete(file(hrw(n, available), bucketId, n));
    }
    String unreadable = damaged.get(3);
    Path unreadableFile = file(hrw(unreadable, available), bucketId, unreadable);
    Files.delete(unreadableFile);
    Files.createDirectory(unreadableFile); // opens, but every read fails (EISDIR): an unreadable file
    long fallbacksBefore = metric("granary_mirror_fallback_reads_total");

    for (String n : damaged.subList(0, 2)) {
      assertThat(getSha(n)).as(n).isEqualTo(Http.sha256(OBJECTS.get(n)));
    }
    for (String n : damaged.subList(2, 4)) { // the S3 GET path reads the copy the same way
      assertThat(s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(n)).asByteArray()).as(n).isEqualTo(OBJECTS.get(n));
    }

    assertThat(metric("granary_mirror_fallback_reads_total") - fallbacksBefore).isEqualTo(damaged.size());
    Awaitility.await().atMost(WAIT).pollInterval(Duration.ofMillis(100)).until(() -> damaged.stream()
        .allMatch(n -> Files.isRegularFile(file(hrw(n, available), bucketId, n))));
    for (String n : damaged) {
      assertThat(Files.readAllBytes(file(hrw(n, available), bucketId, n))).as("%s restored", n)
          .isEqualTo(OBJECTS.get(n));
      assertThat(holders(bucketId, n, available)).hasSize(2);
      assertThat(getSha(n)).isEqualTo(Http.sha256(OBJECTS.get(n)));
    }
  }

  @Test
  @Order(4)
  void changingMirrorCopies_runsMakeNCopies_addingThenRemovingCopies() throws Exception {
    String bucketId = bucketId();
    assertThat(patch("{\"mirror.copies\":3}").status()).isEqualTo(200);
    JsonNode done = awaitJob();
    assertThat(done.path("copies").asInt()).isEqualTo(3);
    assertThat(done.path("examined").asLong()).isGreaterThanOrEqualTo(2L * OBJECTS.size());
    for (String n : OBJECTS.keySet()) {
      assertThat(holders(bucketId, n, available)).as(n).hasSize(3);
    }
    GranaryCli.Result shown = GranaryCli.run(Duration.ofSeconds(60), "job", "show", JOB, "--cluster",
        cluster.endpoint());
    assertThat(shown.exit()).as(shown.all()).isZero();
    assertThat(shown.stdout()).contains("make-n-copies " + JOB + ": succeeded").contains("mirror.copies=3");

    assertThat(patch("{\"mirror.copies\":2}").status()).isEqualTo(200);
    assertThat(awaitJob().path("copies").asInt()).isEqualTo(2);
    for (Map.Entry<String, byte[]> e : OBJECTS.entrySet()) {
      assertThat(holders(bucketId, e.getKey(), available)).as(e.getKey()).hasSize(2)
          .contains(hrw(e.getKey(), available));
      assertThat(getSha(e.getKey())).isEqualTo(Http.sha256(e.getValue()));
    }
    assertThat(metric("granary_mirror_copies_dropped_total")).isGreaterThanOrEqualTo(OBJECTS.size());
  }

  private static final String JOB = "mnc-ais." + BUCKET;

  private static Http.Reply patch(String body) throws Exception {
    return Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(cluster.endpoint() + "/v1/buckets/" + BUCKET))
        .header("Content-Type", "application/json").method("PATCH", HttpRequest.BodyPublishers.ofString(body)));
  }

  /** The bucket's make-n-copies job once it succeeded, as a proxy sums it. */
  private static JsonNode awaitJob() {
    JsonNode[] last = {null};
    Awaitility.await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> {
      Http.Reply r = Http.get(cluster.endpoint() + "/v1/jobs/" + JOB);
      if (r.status() != 200) {
        return false;
      }
      last[0] = ClusterJson.mapper().readTree(r.body());
      assertThat(last[0].path("kind").asText()).isEqualTo("make-n-copies");
      assertThat(last[0].path("state").asText()).isIn("running", "succeeded");
      return last[0].path("state").asText().equals("succeeded");
    });
    return last[0];
  }

  @Test
  @Order(5)
  void aLostMountpath_everyObjectStillReads_andCopyCountsAreRestoredOnTheOthers() throws Exception {
    long resilverBefore = mountpaths().path("resilver").path("id").asLong();
    Http.Reply r = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(mountpathsUrl() + "/"
        + URLEncoder.encode(mp2.toString(), StandardCharsets.UTF_8) + "?mode=disable")).DELETE());
    assertThat(r.status()).as(r.bodyText()).isEqualTo(200);
    available = List.of(mp1, mp3);

    for (String n : OBJECTS.keySet()) {
      assertThat(getSha(n)).as(n).isEqualTo(Http.sha256(OBJECTS.get(n)));
    }

    Awaitility.await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).ignoreExceptions().until(() -> {
      JsonNode res = mountpaths().path("resilver");
      return res.path("id").asLong() > resilverBefore && res.path("state").asText().equals("done");
    });
    String bucketId = bucketId();
    Awaitility.await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> OBJECTS.keySet().stream()
        .allMatch(n -> holders(bucketId, n, available).size() == 2));
    for (Map.Entry<String, byte[]> e : OBJECTS.entrySet()) {
      for (Path mp : available) {
        assertThat(Files.readAllBytes(file(mp, bucketId, e.getKey()))).as("%s on %s", e.getKey(), mp)
            .isEqualTo(e.getValue());
      }
      assertThat(getSha(e.getKey())).isEqualTo(Http.sha256(e.getValue()));
    }
    assertThat(metric("granary_mirror_copy_failures_total")).isZero();
  }

  @Test
  @Order(6)
  void aJoiningTarget_receivesItsObjectsByRebalance_andMakesTheirCopiesThere() throws Exception {
    long made = metric("granary_mirror_copies_made_total");
    for (int i = 0; i < 30; i++) {
      String name = "rebalance/obj-" + i;
      byte[] body = Content.bytes(300 + i, 1000 + i * 7000);
      Http.Reply r = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(url(name)))
          .PUT(HttpRequest.BodyPublishers.ofByteArray(body)));
      assertThat(r.status()).as(name).isEqualTo(200);
      OBJECTS.put(name, body);
    }
    Awaitility.await().atMost(WAIT).pollInterval(Duration.ofMillis(100))
        .until(() -> metric("granary_mirror_copies_made_total") >= made + 30);

    joined = cluster.local().addTarget(List.of());
    long rb = cluster.map().rebalance().id();
    awaitRebalance(rb);

    String bucketId = bucketId();
    List<String> moved = new ArrayList<>();
    for (String n : OBJECTS.keySet()) {
      if (cluster.owner(BUCKET, n).id().equals(joined)) {
        moved.add(n);
      }
    }
    assertThat(moved).as("objects the joining target owns").isNotEmpty();
    List<Path> joinedMps = cluster.mountpaths(joined).stream().map(p -> p.toAbsolutePath().normalize()).toList();
    Awaitility.await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> moved.stream()
        .allMatch(n -> holders(bucketId, n, joinedMps).size() == 2 && holders(bucketId, n, available).isEmpty()));
    for (Map.Entry<String, byte[]> e : OBJECTS.entrySet()) {
      boolean there = moved.contains(e.getKey());
      assertThat(holders(bucketId, e.getKey(), there ? joinedMps : available)).as(e.getKey()).hasSize(2);
      assertThat(getSha(e.getKey())).as(e.getKey()).isEqualTo(Http.sha256(e.getValue()));
    }
  }

  private static String joined; // the target the rebalance phase adds

  private static void awaitRebalance(long id) throws Exception {
    Awaitility.await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> {
      Http.Reply r = Http.get(cluster.endpoint() + "/v1/jobs/rb-" + id);
      return r.status() == 200 && ClusterJson.mapper().readTree(r.body()).path("state").asText().equals("succeeded");
    });
  }

  @Test
  @Order(7)
  void delete_removesEveryCopyFromDisk() throws Exception {
    String bucketId = bucketId();
    for (String n : OBJECTS.keySet()) {
      Http.Reply r = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(url(n))).DELETE());
      assertThat(r.status()).as(n).isEqualTo(204);
    }
    List<Path> all = new ArrayList<>(available);
    if (joined != null) {
      cluster.mountpaths(joined).forEach(p -> all.add(p.toAbsolutePath().normalize()));
    }
    for (String n : OBJECTS.keySet()) {
      assertThat(holders(bucketId, n, all)).as(n).isEmpty();
      assertThat(Http.get(url(n)).status()).isEqualTo(404);
    }
    for (Path mp : all) {
      Path dir = mp.resolve("objects").resolve("ais").resolve(BUCKET);
      if (!Files.exists(dir)) {
        continue; // never held an object of the bucket
      }
      try (Stream<Path> s = Files.walk(dir)) {
        assertThat(s.filter(Files::isRegularFile).count()).as("object files left on %s", mp).isZero();
      }
    }
  }

  // ------------------------------------------------------------------ helpers

  private static String getSha(String name) throws Exception {
    Http.Reply r = Http.get(url(name));
    assertThat(r.status()).as(name).isEqualTo(200);
    return Http.sha256(r.body());
  }

  private static JsonNode mountpaths() throws Exception {
    Http.Reply r = Http.get(mountpathsUrl());
    assertThat(r.status()).isEqualTo(200);
    return ClusterJson.mapper().readTree(r.body());
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

  /** The HRW mountpath of an object over {@code mps}, as the target computes it. */
  private static Path hrw(String name, List<Path> mps) {
    return Rendezvous.unweighted(mps, Path::toString).pick(PlacementKey.digest(Bucket.local(BUCKET), name));
  }

  /** The file of an object on {@code mp}: objects/ais/BUCKET/BUCKET_ID/XX/SHA256(name). */
  private static Path file(Path mp, String bucketId, String name) {
    try {
      String h = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
          .digest(name.getBytes(StandardCharsets.UTF_8)));
      return mp.resolve("objects").resolve("ais").resolve(BUCKET).resolve(bucketId).resolve(h.substring(0, 2))
          .resolve(h);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The mountpaths of {@code mps} holding the object's file as a regular file. */
  private static List<Path> holders(String bucketId, String name, List<Path> mps) {
    return mps.stream().filter(mp -> Files.isRegularFile(file(mp, bucketId, name))).toList();
  }

  private static String bucketId() throws Exception {
    try (Stream<Path> s = Files.list(mp1.resolve("objects").resolve("ais").resolve(BUCKET))) {
      return s.findFirst().orElseThrow().getFileName().toString();
    }
  }
}
