package io.granary.it.protection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.ClusterJson;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.hrw.PlacementKey;
import io.granary.clustermap.hrw.Rendezvous;
import io.granary.it.cache.RemoteBuckets;
import io.granary.it.s3.S3Support;
import io.granary.it.support.Content;
import io.granary.it.support.GranaryCli;
import io.granary.it.support.Http;
import io.granary.it.support.Resources;
import io.granary.it.support.TestCluster;
import io.granary.testkit.S3ProxyServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
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
 * Warm checksum validation and scrub (docs/protection.md#validating-warm-gets) on one target with two mountpaths:
 * bytes flipped in object files on disk (same size: only a checksum notices) are never served as a whole object.
 * With a mirror copy the GET serves correct bytes and the main copy is repaired on disk; without one the answer is
 * an error or a body cut short, counted; a remote bucket's corrupt cached copy is fetched again from the remote; a
 * scrub finds and repairs corrupt main and mirror copies and reports its counts; a bucket without the setting is
 * served as before (zero-copy, unhashed: the flipped bytes go out). Phases run in order.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ValidationIT {
  private static final String TARGET = "t1";
  private static final String MIRRORED = "vmirror"; // mirror.copies=2, validateWarmGet
  private static final String PLAIN = "vplain"; // validateWarmGet, one copy
  private static final String UNVALIDATED = "vnone";
  private static final String REMOTE = "vremote"; // S3Proxy bucket, validateWarmGet
  private static final int SMALL = 300_000; // hashed before it is sent
  private static final int LARGE = 3 << 20; // streamed while hashed
  private static final Duration WAIT = Duration.ofSeconds(90);
  private static TestCluster cluster;
  private static S3ProxyServer s3proxy;
  private static S3Client backend;
  private static S3Client s3;
  private static List<Path> mps;

  @BeforeAll
  static void start() throws Exception {
    Path work = Files.createTempDirectory("validation-it");
    s3proxy = S3ProxyServer.start(work.resolve("s3proxy"));
    backend = RemoteBuckets.backendClient(s3proxy);
    backend.createBucket(b -> b.bucket(REMOTE));
    backend.putObject(b -> b.bucket(REMOTE).key("small"), RequestBody.fromBytes(Content.bytes(50, SMALL)));
    backend.putObject(b -> b.bucket(REMOTE).key("large"), RequestBody.fromBytes(Content.bytes(51, LARGE)));
    cluster = TestCluster.start("validation", 1);
    mps = cluster.mountpaths(TARGET).stream().map(p -> p.toAbsolutePath().normalize()).toList();
    assertThat(mps).hasSize(2);
    create(MIRRORED, "{\"protection\":{\"mirror.copies\":2,\"checksum.validateWarmGet\":true}}");
    create(PLAIN, "{\"protection\":{\"checksum.validateWarmGet\":true}}");
    create(UNVALIDATED, "{}");
    Http.Reply reg = RemoteBuckets.register(cluster, "aws", REMOTE, RemoteBuckets.s3Props(s3proxy.endpoint(),
        s3proxy.writeCredentialsFile(work.resolve("credentials")), "never", false));
    assertThat(reg.status()).as(reg.bodyText()).isEqualTo(201);
    Http.Reply patched = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(cluster.endpoint()
        + "/v1/buckets/" + REMOTE + "?provider=aws")).header("Content-Type", "application/json")
        .method("PATCH", HttpRequest.BodyPublishers.ofString("{\"checksum.validateWarmGet\":true}")));
    assertThat(patched.status()).as(patched.bodyText()).isEqualTo(200);
    s3 = S3Support.sync(cluster);
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(s3, backend, cluster, s3proxy);
  }

  private static void create(String bucket, String json) throws Exception {
    Http.Reply created = cluster.createBucket(bucket, json);
    assertThat(created.status()).as(created.bodyText()).isEqualTo(201);
  }

  @Test
  @Order(1)
  void unvalidatedBucket_isServedAsBefore_unhashed() throws Exception {
    byte[] body = Content.bytes(1, SMALL);
    put(UNVALIDATED, "a", body);
    assertThat(Http.get(url(UNVALIDATED, "a")).body()).isEqualTo(body);
    long failures = failures("get");

    Path file = holders("ais", UNVALIDATED, "a").get(0);
    flip(file, 1000);
    byte[] flipped = body.clone();
    flipped[1000] ^= (byte) 0xFF;
    Http.Reply r = Http.get(url(UNVALIDATED, "a"));

    assertThat(r.status()).isEqualTo(200);
    assertThat(r.body()).as("served zero-copy, never hashed").isEqualTo(flipped);
    assertThat(failures("get")).isEqualTo(failures);
  }

  @Test
  @Order(2)
  void mirroredBucket_flippedMainBytes_getServesCorrectBytes_andTheMainCopyIsRepaired() throws Exception {
    byte[] small = Content.bytes(2, SMALL);
    byte[] smallS3 = Content.bytes(3, SMALL + 1);
    byte[] large = Content.bytes(4, LARGE);
    put(MIRRORED, "small", small);
    put(MIRRORED, "small-s3", smallS3);
    put(MIRRORED, "large", large);
    awaitCopies(MIRRORED, "small", "small-s3", "large");
    long repairs = metric("granary_validation_repairs_total", "from=\"mirror\"");
    for (String n : List.of("small", "small-s3", "large")) {
      flip(main(MIRRORED, n), 7);
    }

    // small: hashed before it is sent, repaired, then served from the repaired copy
    Http.Reply r = Http.get(url(MIRRORED, "small"));
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.body()).isEqualTo(small);
    assertThat(Files.readAllBytes(main(MIRRORED, "small"))).as("main copy repaired on disk").isEqualTo(small);
    assertThat(s3.getObjectAsBytes(b -> b.bucket(MIRRORED).key("small-s3")).asByteArray()).isEqualTo(smallS3);
    assertThat(Files.readAllBytes(main(MIRRORED, "small-s3"))).isEqualTo(smallS3);

    // large: streamed while hashed; the mismatch is known at the end, so the body is cut short, then repaired
    Cut cut = readCut(url(MIRRORED, "large"));
    assertThat(cut.bytes()).as("never the whole wrong object").isLessThan(LARGE);
    Awaitility.await().atMost(WAIT).pollInterval(Duration.ofMillis(100)).ignoreExceptions()
        .until(() -> java.util.Arrays.equals(Files.readAllBytes(main(MIRRORED, "large")), large));
    assertThat(Http.get(url(MIRRORED, "large")).body()).isEqualTo(large);
    assertThat(holders("ais", MIRRORED, "large")).hasSize(2);
    assertThat(metric("granary_validation_repairs_total", "from=\"mirror\"")).isEqualTo(repairs + 3);
    assertThat(metric("granary_validation_quarantined_total", "")).isGreaterThanOrEqualTo(3);
    try (Stream<Path> q = Files.list(mainMountpath(MIRRORED, "large").resolve("quarantine"))) {
      assertThat(q.count()).as("bad files kept aside").isGreaterThanOrEqualTo(1);
    }
  }

  @Test
  @Order(3)
  void bucketWithoutACopy_flippedBytes_errorOrCutShort_neverAWholeWrongObject_andCounted() throws Exception {
    byte[] small = Content.bytes(5, SMALL);
    byte[] large = Content.bytes(6, LARGE);
    put(PLAIN, "small", small);
    put(PLAIN, "large", large);
    assertThat(Http.get(url(PLAIN, "large")).body()).as("intact: served whole").isEqualTo(large);
    long failures = failures("get");
    long unrepairable = metric("granary_validation_unrepairable_total", "");
    flip(holders("ais", PLAIN, "small").get(0), SMALL - 1);
    flip(holders("ais", PLAIN, "large").get(0), 12345);

    Http.Reply r = Http.get(url(PLAIN, "small"));
    assertThat(r.status()).as("refused before any byte").isEqualTo(500);
    assertThat(r.bodyText()).contains("does not match its");
    Cut cut = readCut(url(PLAIN, "large"));
    assertThat(cut.status()).isEqualTo(200);
    assertThat(cut.bytes()).as("cut short").isLessThan(LARGE);
    assertThatThrownBy(() -> s3.getObjectAsBytes(b -> b.bucket(PLAIN).key("large")))
        .as("the S3 GET is cut short too");
    // ranges: of a small object, validated whole first (refused); of a large one, sent unvalidated by design
    assertThat(rangeGet(url(PLAIN, "small"), "bytes=0-99").status()).isEqualTo(500);
    Http.Reply range = rangeGet(url(PLAIN, "large"), "bytes=12340-12349");
    assertThat(range.status()).isEqualTo(206);
    byte[] expected = java.util.Arrays.copyOfRange(large, 12340, 12350);
    expected[5] ^= (byte) 0xFF;
    assertThat(range.body()).as("a range of a large object is not hashed").isEqualTo(expected);

    Awaitility.await().atMost(WAIT).pollInterval(Duration.ofMillis(100))
        .until(() -> failures("get") >= failures + 2);
    Awaitility.await().atMost(WAIT).pollInterval(Duration.ofMillis(100))
        .until(() -> metric("granary_validation_unrepairable_total", "") >= unrepairable + 2);
    assertThat(holders("ais", PLAIN, "small")).as("the only copy stays where it is").hasSize(1);
  }

  @Test
  @Order(4)
  void remoteBucket_corruptCachedCopy_theNextGetReturnsCorrectBytesFromTheRemote() throws Exception {
    byte[] small = Content.bytes(50, SMALL);
    byte[] large = Content.bytes(51, LARGE);
    assertThat(RemoteBuckets.get(cluster, "aws", REMOTE, "small", null).body()).isEqualTo(small);
    assertThat(RemoteBuckets.get(cluster, "aws", REMOTE, "large", null).body()).isEqualTo(large);
    Awaitility.await().atMost(WAIT).pollInterval(Duration.ofMillis(100))
        .until(() -> holders("aws", REMOTE, "small").size() == 1 && holders("aws", REMOTE, "large").size() == 1);
    long repairs = metric("granary_validation_repairs_total", "from=\"remote\"");
    flip(holders("aws", REMOTE, "small").get(0), 99);
    flip(holders("aws", REMOTE, "large").get(0), 99);

    Http.Reply r = RemoteBuckets.get(cluster, "aws", REMOTE, "small", null);
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.body()).as("dropped and fetched again in the same GET").isEqualTo(small);
    Cut cut = readCut(RemoteBuckets.objectUrl(cluster, "aws", REMOTE, "large", null));
    assertThat(cut.bytes()).isLessThan(LARGE);
    Awaitility.await().atMost(WAIT).pollInterval(Duration.ofMillis(100))
        .until(() -> metric("granary_validation_repairs_total", "from=\"remote\"") >= repairs + 2);
    assertThat(RemoteBuckets.get(cluster, "aws", REMOTE, "large", null).body()).isEqualTo(large);
    Awaitility.await().atMost(WAIT).pollInterval(Duration.ofMillis(100)).ignoreExceptions()
        .until(() -> java.util.Arrays.equals(Files.readAllBytes(holders("aws", REMOTE, "large").get(0)), large));
  }

  @Test
  @Order(5)
  void scrub_findsAndRepairsCorruptMainAndMirrorCopies_andReportsCounts() throws Exception {
    byte[] a = Content.bytes(7, 100_000);
    byte[] b = Content.bytes(8, 2 << 20);
    put(MIRRORED, "scrub/a", a);
    put(MIRRORED, "scrub/b", b);
    awaitCopies(MIRRORED, "scrub/a", "scrub/b");
    flip(main(MIRRORED, "scrub/a"), 0);
    Path copyOfB = holders("ais", MIRRORED, "scrub/b").stream()
        .filter(f -> !f.equals(main(MIRRORED, "scrub/b"))).findFirst().orElseThrow();
    flip(copyOfB, (2 << 20) - 1);
    long scrubFailures = failures("scrub");

    JsonNode job = scrub(MIRRORED);

    assertThat(job.path("corrupt").asLong()).isEqualTo(2);
    assertThat(job.path("repaired").asLong()).isEqualTo(2);
    assertThat(job.path("unrepairable").asLong()).isZero();
    assertThat(job.path("objects").asLong()).isEqualTo(5); // small, small-s3, large, scrub/a, scrub/b
    assertThat(job.path("bytes").asLong()).isEqualTo(2L * (SMALL + SMALL + 1 + LARGE + 100_000 + (2 << 20)));
    assertThat(failures("scrub")).isEqualTo(scrubFailures + 2);
    for (Path f : holders("ais", MIRRORED, "scrub/a")) {
      assertThat(Files.readAllBytes(f)).as(f.toString()).isEqualTo(a);
    }
    assertThat(holders("ais", MIRRORED, "scrub/b")).hasSize(2);
    for (Path f : holders("ais", MIRRORED, "scrub/b")) {
      assertThat(Files.readAllBytes(f)).as(f.toString()).isEqualTo(b);
    }
  }

  @Test
  @Order(6)
  void scrubOfACleanBucket_fromTheCli_reportsNothingCorrupt() throws Exception {
    GranaryCli.Result r = GranaryCli.run(Duration.ofSeconds(120), "scrub", MIRRORED, "--wait", "--cluster",
        cluster.endpoint());
    assertThat(r.exit()).as(r.all()).isZero();
    assertThat(r.all()).contains("scrub-ais." + MIRRORED).contains("5 objects checked")
        .contains("0 corrupt copies");
    GranaryCli.Result shown = GranaryCli.run(Duration.ofSeconds(60), "job", "show", "scrub-ais." + MIRRORED,
        "--cluster", cluster.endpoint());
    assertThat(shown.exit()).as(shown.all()).isZero();
    assertThat(shown.stdout()).contains("scrub scrub-ais." + MIRRORED + ": succeeded").contains(TARGET);
  }

  @Test
  @Order(7)
  void badInput_unknownBucket404_invalidBody400_unknownJob404() throws Exception {
    assertThat(postJob("{\"kind\":\"scrub\",\"bucket\":\"no-such-bucket\"}").status()).isEqualTo(404);
    assertThat(postJob("{\"kind\":\"scrub\"}").status()).isEqualTo(400);
    assertThat(postJob("{\"kind\":\"scrub\",\"bucket\":\"" + MIRRORED + "\",\"prefix\":\"x\"}").status())
        .isEqualTo(400);
    assertThat(postJob("{\"kind\":\"scrub\",\"bucket\":\"" + MIRRORED + "\",\"provider\":\"ftp\"}").status())
        .isEqualTo(400);
    assertThat(Http.get(cluster.endpoint() + "/v1/jobs/scrub-ais.no-such-bucket").status()).isEqualTo(404);
  }

  // ------------------------------------------------------------------ helpers

  private static Http.Reply postJob(String body) throws Exception {
    return Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(cluster.endpoint() + "/v1/jobs"))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)));
  }

  /** Starts a scrub of {@code bucket} and answers its status once it succeeded. */
  private static JsonNode scrub(String bucket) throws Exception {
    Http.Reply started = postJob("{\"kind\":\"scrub\",\"bucket\":\"" + bucket + "\"}");
    assertThat(started.status()).as(started.bodyText()).isIn(200, 201, 202);
    String id = ClusterJson.mapper().readTree(started.body()).path("id").asText();
    assertThat(id).isEqualTo("scrub-ais." + bucket);
    JsonNode[] last = {null};
    Awaitility.await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> {
      Http.Reply r = Http.get(cluster.endpoint() + "/v1/jobs/" + id);
      assertThat(r.status()).as(r.bodyText()).isEqualTo(200);
      last[0] = ClusterJson.mapper().readTree(r.body());
      assertThat(last[0].path("kind").asText()).isEqualTo("scrub");
      assertThat(last[0].path("state").asText()).isIn("running", "succeeded");
      return last[0].path("state").asText().equals("succeeded");
    });
    return last[0];
  }

  private static Http.Reply rangeGet(String url, String range) throws Exception {
    return Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(url)).header("Range", range).GET());
  }

  /** What a GET read before its body ended or failed. */
  private record Cut(int status, long bytes) {
  }

  private static Cut readCut(String url) throws Exception {
    HttpResponse<InputStream> r = Http.sendFollowing(HttpRequest.newBuilder(URI.create(url))
        .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofInputStream());
    long n = 0;
    byte[] buf = new byte[64 << 10];
    try (InputStream in = r.body()) {
      for (int k; (k = in.read(buf)) > 0; ) {
        n += k;
      }
    } catch (IOException e) {
      // the connection closed before Content-Length bytes: what a cut-short answer looks like
    }
    return new Cut(r.statusCode(), n);
  }

  private static void put(String bucket, String name, byte[] body) throws Exception {
    if (name.endsWith("-s3")) {
      s3.putObject(b -> b.bucket(bucket).key(name), RequestBody.fromBytes(body));
      return;
    }
    Http.Reply r = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(url(bucket, name)))
        .PUT(HttpRequest.BodyPublishers.ofByteArray(body)));
    assertThat(r.status()).as(r.bodyText()).isEqualTo(200);
  }

  private static void awaitCopies(String bucket, String... names) {
    Awaitility.await().atMost(WAIT).pollInterval(Duration.ofMillis(100))
        .until(() -> Stream.of(names).allMatch(n -> holders("ais", bucket, n).size() == 2));
  }

  private static String url(String bucket, String name) {
    return cluster.endpoint() + "/v1/objects/" + bucket + "/" + name;
  }

  /** Flips every bit of the byte at {@code at}: same size, only a checksum notices. */
  private static void flip(Path file, long at) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.allocate(1);
      ch.read(b, at);
      b.put(0, (byte) (b.get(0) ^ 0xFF));
      b.rewind();
      ch.write(b, at);
    }
  }

  private static long failures(String foundBy) throws Exception {
    return metric("granary_validation_failures_total", "found_by=\"" + foundBy + "\"");
  }

  /** A target metric's value from its /metrics, the first line of {@code name} containing {@code label}. */
  private static long metric(String name, String label) throws Exception {
    String text = Http.get(cluster.targetUrl(TARGET) + "/metrics").bodyText();
    for (String line : text.split("\n")) {
      if ((line.startsWith(name + "{") || line.startsWith(name + " ")) && line.contains(label)) {
        return (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return 0;
  }

  private static Path mainMountpath(String bucket, String name) {
    return Rendezvous.unweighted(mps, Path::toString).pick(PlacementKey.digest(Bucket.local(bucket), name));
  }

  /** The main copy's file of a local bucket's object: on its HRW mountpath. */
  private static Path main(String bucket, String name) {
    return file(mainMountpath(bucket, name), "ais", bucket, name);
  }

  /** The object's files, as regular files, on the target's mountpaths. */
  private static List<Path> holders(String provider, String bucket, String name) {
    return mps.stream().map(mp -> file(mp, provider, bucket, name)).filter(f -> f != null && Files.isRegularFile(f))
        .toList();
  }

  /** objects/PROVIDER/BUCKET/BUCKET_ID/XX/SHA256(name) on {@code mp}, or null when the bucket has no dir there. */
  private static Path file(Path mp, String provider, String bucket, String name) {
    Path dir = mp.resolve("objects").resolve(provider).resolve(bucket);
    if (!Files.isDirectory(dir)) {
      return null;
    }
    try (Stream<Path> ids = Files.list(dir)) {
      Path id = ids.findFirst().orElse(null);
      if (id == null) {
        return null;
      }
      String h = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
          .digest(name.getBytes(StandardCharsets.UTF_8)));
      return id.resolve(h.substring(0, 2)).resolve(h);
    } catch (IOException | java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
