package io.granary.it.cache;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.ClusterJson;
import io.granary.it.support.Content;
import io.granary.it.support.Http;
import io.granary.it.support.Resources;
import io.granary.it.support.TestCluster;
import io.granary.testkit.FaultProxy;
import io.granary.testkit.S3ProxyServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Predicate;
import java.util.zip.CRC32;
import org.assertj.core.api.Assertions;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ChecksumAlgorithm;
import software.amazon.awssdk.services.s3.model.ChecksumMode;
import software.amazon.awssdk.services.s3.model.ChecksumType;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

/**
 * A cluster caching an S3 bucket of a real S3 server (S3Proxy in its own JVM), reached through a fault-injecting
 * proxy that counts what the cluster asks the backend: cold GETs stream, coalesce, verify and survive backend
 * faults; warm GETs revalidate per TTL; PUTs write through.
 */
class ColdGetS3IT {
  private static final String BUCKET = "remote-s3";
  private static S3ProxyServer s3proxy;
  private static FaultProxy faults;
  private static TestCluster cluster;
  private static S3Client backend;
  private static Path work;

  @BeforeAll
  static void start() throws Exception {
    work = Files.createTempDirectory("coldget-s3");
    s3proxy = S3ProxyServer.start(work.resolve("s3proxy"));
    faults = FaultProxy.start(s3proxy.endpoint());
    backend = RemoteBuckets.backendClient(s3proxy);
    backend.createBucket(b -> b.bucket(BUCKET));
    cluster = TestCluster.start("coldget-s3", 2, List.of(), List.of("--health-interval", "1s", "--offline-after", "4s"),
        false, List.of("--cold-parallel-threshold", "8MiB", "--cold-parallel-chunk", "2MiB",
            "--backend-read-timeout", "2s"));
    Path creds = s3proxy.writeCredentialsFile(work.resolve("credentials"));
    Http.Reply r = RemoteBuckets.register(cluster, "aws", BUCKET, RemoteBuckets.s3Props(faults.endpoint(), creds,
        "1s", true));
    assertThat(r.status()).as(r.bodyText()).isEqualTo(201);
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(backend, cluster, faults, s3proxy);
  }

  @AfterEach
  void clear() {
    faults.clearFaults();
  }

  private static byte[] seed(String key, int size, long seed) {
    byte[] data = Content.bytes(seed, size);
    backend.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromBytes(data));
    return data;
  }

  /**
   * Uploads {@code key} in 5 MiB parts with a whole-object CRC32, as current SDKs can (x-amz-checksum-type). Each
   * part's CRC32 goes as a header: S3Proxy keeps no checksum that arrives as an aws-chunked trailer.
   */
  private static byte[] seedMultipart(String key, int size, long seed) {
    byte[] data = Content.bytes(seed, size);
    String id = backend.createMultipartUpload(b -> b.bucket(BUCKET).key(key)
        .checksumAlgorithm(ChecksumAlgorithm.CRC32).checksumType(ChecksumType.FULL_OBJECT)).uploadId();
    List<CompletedPart> parts = new ArrayList<>();
    int partSize = 5 * 1024 * 1024;
    for (int n = 1, off = 0; off < size; n++, off += partSize) {
      int number = n;
      byte[] part = Arrays.copyOfRange(data, off, Math.min(size, off + partSize));
      String crc32 = crcBase64(new CRC32(), part);
      UploadPartResponse up = backend.uploadPart(b -> b.bucket(BUCKET).key(key).uploadId(id).partNumber(number)
          .checksumCRC32(crc32), RequestBody.fromBytes(part));
      parts.add(CompletedPart.builder().partNumber(number).eTag(up.eTag()).checksumCRC32(up.checksumCRC32()).build());
    }
    backend.completeMultipartUpload(b -> b.bucket(BUCKET).key(key).uploadId(id).checksumType(ChecksumType.FULL_OBJECT)
        .multipartUpload(u -> u.parts(parts)));
    HeadObjectResponse head = backend.headObject(b -> b.bucket(BUCKET).key(key).checksumMode(ChecksumMode.ENABLED));
    assertThat(head.eTag()).as("a multipart ETag").contains("-");
    assertThat(head.checksumCRC32()).as("the whole-object CRC32 S3Proxy keeps").isNotNull();
    assertThat(head.checksumType()).isEqualTo(ChecksumType.FULL_OBJECT);
    return data;
  }

  private static Predicate<FaultProxy.Recorded> getOf(String key) {
    return r -> r.method().equals("GET") && r.pathAndQuery().startsWith("/" + BUCKET + "/" + key)
        && !r.pathAndQuery().contains("?list-type");
  }

  @Test
  void coldGet_isByteExact_thenWarm_withoutAnotherBackendRead() throws Exception {
    byte[] data = seed("cold/one.bin", 3_000_000, 1);
    Http.Reply cold = RemoteBuckets.get(cluster, "aws", BUCKET, "cold/one.bin", null);
    assertThat(cold.status()).isEqualTo(200);
    assertThat(cold.body()).isEqualTo(data);
    long reads = faults.count(getOf("cold/one.bin"));
    Http.Reply warm = RemoteBuckets.get(cluster, "aws", BUCKET, "cold/one.bin", null);
    assertThat(warm.body()).isEqualTo(data);
    assertThat(faults.count(getOf("cold/one.bin"))).isEqualTo(reads);
  }

  @Test
  void largeObject_isFetchedWithParallelRanges_andByteExact() throws Exception {
    byte[] data = seed("big/parallel.bin", 20 * 1024 * 1024 + 12345, 2);
    Http.Reply r = RemoteBuckets.get(cluster, "aws", BUCKET, "big/parallel.bin", null);
    assertThat(r.status()).isEqualTo(200);
    assertThat(Http.sha256(r.body())).isEqualTo(Http.sha256(data));
    List<FaultProxy.Recorded> gets = faults.requests().stream().filter(getOf("big/parallel.bin")).toList();
    // The first read is a range of the threshold's 8 MiB; the rest comes as 2 MiB chunks. Together the ranges
    // cover the object exactly once: no byte is asked for twice, none is sent only to be aborted.
    assertThat(gets).allSatisfy(g -> assertThat(g.range()).isNotNull());
    assertThat(gets.get(0).range()).isEqualTo("bytes=0-" + (8 * 1024 * 1024 - 1));
    assertThat(gets).hasSize(1 + (data.length - 8 * 1024 * 1024 + 2 * 1024 * 1024 - 1) / (2 * 1024 * 1024));
    long covered = 0;
    List<long[]> spans = new ArrayList<>();
    for (FaultProxy.Recorded g : gets) {
      String[] fromTo = g.range().substring("bytes=".length()).split("-");
      long from = Long.parseLong(fromTo[0]);
      long to = Math.min(Long.parseLong(fromTo[1]), data.length - 1);
      spans.add(new long[] {from, to});
      covered += to - from + 1;
    }
    spans.sort((a, b) -> Long.compare(a[0], b[0]));
    for (int i = 1; i < spans.size(); i++) {
      assertThat(spans.get(i)[0]).as("ranges are contiguous").isEqualTo(spans.get(i - 1)[1] + 1);
    }
    assertThat(covered).isEqualTo(data.length);
  }

  @Test
  void emptyAndTinyObjects_areFetchedCold() throws Exception {
    seed("tiny/empty.bin", 0, 30);
    byte[] three = seed("tiny/three.bin", 3, 31);
    Http.Reply empty = RemoteBuckets.get(cluster, "aws", BUCKET, "tiny/empty.bin", null);
    assertThat(empty.status()).as(empty.bodyText()).isEqualTo(200);
    assertThat(empty.body()).isEmpty();
    Http.Reply tiny = RemoteBuckets.get(cluster, "aws", BUCKET, "tiny/three.bin", null);
    assertThat(tiny.status()).isEqualTo(200);
    assertThat(tiny.body()).isEqualTo(three);
    // A client can have the last byte a moment before the fetch has fsynced and committed the object.
    assertThat(awaitCached("tiny/empty.bin", "tiny/three.bin")).contains("tiny/empty.bin", "tiny/three.bin");
    long before = faults.count(getOf("tiny/"));
    assertThat(RemoteBuckets.get(cluster, "aws", BUCKET, "tiny/empty.bin", null).body()).isEmpty();
    assertThat(faults.count(getOf("tiny/"))).as("warm reads send the backend no GET").isEqualTo(before);
  }

  @Test
  void hundredConcurrentColdGets_makeOneBackendGet_andAllAreByteExact() throws Exception {
    byte[] data = seed("herd/one.bin", 4_000_000, 3);
    // Slow the backend down so every request arrives while the one fetch is still running.
    faults.inject(getOf("herd/one.bin"), new FaultProxy.Fault.Stall(Duration.ofMillis(800), 0), 1);
    String expected = Http.sha256(data);
    HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .followRedirects(HttpClient.Redirect.NORMAL).connectTimeout(Duration.ofSeconds(5)).build();
    ExecutorService pool = Executors.newFixedThreadPool(100);
    try {
      List<CompletableFuture<Http.Reply>> all = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        all.add(CompletableFuture.supplyAsync(() -> {
          try {
            return Http.sendHashing(client, HttpRequest.newBuilder(URI.create(
                RemoteBuckets.objectUrl(cluster, "aws", BUCKET, "herd/one.bin", null))).GET());
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        }, pool));
      }
      for (CompletableFuture<Http.Reply> f : all) {
        Http.Reply r = f.get();
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.sha256()).isEqualTo(expected);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(faults.count(getOf("herd/one.bin"))).as("backend GETs of the object").isEqualTo(1);
  }

  @Test
  void corruptedBackendBytes_areNotCached_andTheClientSeesAnError() throws Exception {
    assertCorruptionIsCaught("bad/corrupt.bin", seed("bad/corrupt.bin", 1_000_000, 4));
  }

  @Test
  void multipartObject_isVerifiedWithTheRemotesWholeObjectChecksum_andACorruptedOneIsNotCached() throws Exception {
    // A multipart upload's ETag is no MD5: only the whole-object CRC the remote keeps can vouch for the content.
    byte[] data = seedMultipart("mpu/crc.bin", 11 * 1024 * 1024 + 777, 50);
    Http.Reply r = RemoteBuckets.get(cluster, "aws", BUCKET, "mpu/crc.bin", null);
    assertThat(r.status()).isEqualTo(200);
    assertThat(Http.sha256(r.body())).isEqualTo(Http.sha256(data));
    assertThat(awaitCached("mpu/crc.bin")).contains("mpu/crc.bin");
    assertThat(faults.count(q -> q.method().equals("HEAD")
        && q.pathAndQuery().startsWith("/" + BUCKET + "/mpu/crc.bin"))).as("one HEAD asks for the checksum").isEqualTo(1);

    assertCorruptionIsCaught("mpu/corrupt.bin", seedMultipart("mpu/corrupt.bin", 11 * 1024 * 1024 + 777, 51));
  }

  @Test
  void largeObjectCarryingTheBucketsChecksum_isVerifiedAgainstIt_andNotAgainstItsMd5Etag() throws Exception {
    // A crc32c bucket over single-part objects uploaded with a CRC32C, as current SDKs upload: one HEAD fetches
    // the CRC32C S3 keeps, and the one hash the bucket needs anyway verifies the content; no MD5 is computed.
    String bucket = "remote-s3-crc32c";
    backend.createBucket(b -> b.bucket(bucket));
    String props = RemoteBuckets.s3Props(faults.endpoint(), work.resolve("credentials"), "1s", true);
    Http.Reply reg = RemoteBuckets.register(cluster, "aws", bucket, "{\"checksum\":\"crc32c\"," + props.substring(1));
    assertThat(reg.status()).as(reg.bodyText()).isEqualTo(201);
    byte[] data = Content.bytes(60, 10 * 1024 * 1024 + 99);
    backend.putObject(b -> b.bucket(bucket).key("crc/good.bin").checksumCRC32C(crc32cBase64(data)),
        RequestBody.fromBytes(data));
    Http.Reply r = RemoteBuckets.get(cluster, "aws", bucket, "crc/good.bin", null);
    assertThat(r.status()).isEqualTo(200);
    assertThat(Http.sha256(r.body())).isEqualTo(Http.sha256(data));
    assertThat(faults.count(q -> q.method().equals("HEAD")
        && q.pathAndQuery().startsWith("/" + bucket + "/crc/good.bin"))).as("one HEAD asks for the checksum").isEqualTo(1);
    assertThat(r.header("granary-checksum-value")).as("the ETag's MD5 is not claimed: nothing verifies it here").isEmpty();
    Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
        .until(() -> cachedNames(bucket), cached -> cached.contains("crc/good.bin"));
    Http.Reply warm = RemoteBuckets.get(cluster, "aws", bucket, "crc/good.bin", null);
    assertThat(warm.header("granary-checksum-value")).contains(
        HexFormat.of().formatHex(Base64.getDecoder().decode(crc32cBase64(data))));

    // An answer to the HEAD that claims another CRC32C (the ETag still is the content's MD5): the content fails
    // verification against it, which shows it was the CRC32C that decided, and nothing is cached.
    byte[] other = data.clone();
    other[12345] ^= 1;
    backend.putObject(b -> b.bucket(bucket).key("crc/claims-another.bin").checksumCRC32C(crc32cBase64(data)),
        RequestBody.fromBytes(data));
    faults.inject(q -> q.method().equals("HEAD") && q.pathAndQuery().startsWith("/" + bucket + "/crc/claims-another"),
        new FaultProxy.Fault.ReplaceHeader("x-amz-checksum-crc32c", crc32cBase64(other)), 1);
    assertFailsUncached(bucket, "crc/claims-another.bin", data);
    assertThat(cachedNames(bucket)).contains("crc/good.bin");
  }

  private static String crc32cBase64(byte[] data) {
    return crcBase64(new java.util.zip.CRC32C(), data);
  }

  /** A CRC as S3 clients send it: the base64 of its 4 big-endian bytes. */
  private static String crcBase64(java.util.zip.Checksum crc, byte[] data) {
    crc.update(data, 0, data.length);
    return Base64.getEncoder().encodeToString(ByteBuffer.allocate(4).putInt((int) crc.getValue()).array());
  }

  /** A cold GET of {@code key} whose backend bytes arrive corrupted fails and caches nothing (see below). */
  private static void assertCorruptionIsCaught(String key, byte[] data) throws Exception {
    faults.inject(getOf(key), new FaultProxy.Fault.Corrupt(500_000), 1);
    assertFailsUncached(BUCKET, key, data);
  }

  /**
   * A cold GET of {@code key} fails (cut short before its last byte, or 5xx) and caches nothing; the next GET, with no
   * fault armed, fetches it again and gets {@code data}.
   */
  private static void assertFailsUncached(String bucket, String key, byte[] data) throws Exception {
    Throwable failure = null;
    Http.Reply r = null;
    try {
      r = RemoteBuckets.get(cluster, "aws", bucket, key, null);
    } catch (IOException e) {
      failure = e; // the body was cut short
    }
    if (failure == null) {
      assertThat(r.status()).isGreaterThanOrEqualTo(500);
    }
    assertThat(cachedNames(bucket)).doesNotContain(key);
    Http.Reply again = RemoteBuckets.get(cluster, "aws", bucket, key, null);
    assertThat(again.status()).isEqualTo(200);
    assertThat(Http.sha256(again.body())).isEqualTo(Http.sha256(data));
  }

  @Test
  void truncatedBackendBody_isResumedOrFails_butNeverCachedShort() throws Exception {
    byte[] data = seed("bad/truncated.bin", 1_500_000, 5);
    faults.inject(getOf("bad/truncated.bin"), new FaultProxy.Fault.Truncate(700_000), 1);
    Http.Reply r = RemoteBuckets.get(cluster, "aws", BUCKET, "bad/truncated.bin", null);
    // The fetch resumes from where the body broke off, pinned to the same version.
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.body()).isEqualTo(data);
    assertThat(faults.count(getOf("bad/truncated.bin"))).isEqualTo(2);
  }

  @Test
  void backend503s_areRetried_andTheClientGetsTheObject() throws Exception {
    byte[] data = seed("flaky/503.bin", 200_000, 6);
    faults.inject(getOf("flaky/503.bin"), new FaultProxy.Fault.Status(503), 2);
    Http.Reply r = RemoteBuckets.get(cluster, "aws", BUCKET, "flaky/503.bin", null);
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.body()).isEqualTo(data);
    assertThat(faults.count(getOf("flaky/503.bin"))).isEqualTo(3);
  }

  @Test
  void backendDown_is503_withRetryAfter_notAHang() throws Exception {
    seed("flaky/down.bin", 10_000, 7);
    faults.inject(getOf("flaky/down.bin"), new FaultProxy.Fault.Status(503), -1);
    long t0 = System.nanoTime();
    Http.Reply r = RemoteBuckets.get(cluster, "aws", BUCKET, "flaky/down.bin", null);
    assertThat(r.status()).isEqualTo(503);
    assertThat(r.header("Retry-After")).isPresent();
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(60));
  }

  @Test
  void stalledBackend_failsTheRequest_withinBounds() throws Exception {
    seed("flaky/stall.bin", 2_000_000, 8);
    faults.inject(getOf("flaky/stall.bin"), new FaultProxy.Fault.Stall(Duration.ofSeconds(30), 100_000), -1);
    long t0 = System.nanoTime();
    Throwable failure = null;
    try {
      Http.Reply r = RemoteBuckets.get(cluster, "aws", BUCKET, "flaky/stall.bin", null);
      assertThat(r.status()).isGreaterThanOrEqualTo(500);
    } catch (IOException e) {
      failure = e;
    }
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(29));
    assertThat(cachedNames()).doesNotContain("flaky/stall.bin");
  }

  @Test
  void missingObject_is404_andUnknownCredentials_failRegistration() throws Exception {
    assertThat(RemoteBuckets.get(cluster, "aws", BUCKET, "no/such/object", null).status()).isEqualTo(404);
    Path bad = work.resolve("bad-credentials");
    Files.writeString(bad, "[default]\naws_access_key_id=nobody\naws_secret_access_key=wrong\n");
    Http.Reply r = RemoteBuckets.register(cluster, "aws", "other", RemoteBuckets.s3Props(s3proxy.endpoint(), bad,
        "60s", false));
    assertThat(r.status()).as(r.bodyText()).isIn(403, 404);
  }

  @Test
  void rangeOfAColdObject_answersWithoutWaitingForTheWholeObject() throws Exception {
    byte[] data = seed("range/cold.bin", 6_000_000, 9);
    // The fetch (whose first read is a range from 0) is held back; the range far from its start is read from the
    // backend directly.
    faults.inject(r -> getOf("range/cold.bin").test(r) && (r.range() == null || r.range().startsWith("bytes=0-")),
        new FaultProxy.Fault.Stall(Duration.ofSeconds(20), 64 * 1024), 1);
    Http.Reply r = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(RemoteBuckets.objectUrl(cluster, "aws",
        BUCKET, "range/cold.bin", null))).header("Range", "bytes=5000000-5000999").GET());
    assertThat(r.status()).isEqualTo(206);
    assertThat(r.body()).isEqualTo(Arrays.copyOfRange(data, 5_000_000, 5_001_000));
    // Answered while the whole object's fetch is still held back: the range did not wait for it.
    assertThat(cachedNames()).doesNotContain("range/cold.bin");
  }

  @Test
  void changedRemoteObject_isFetchedAgainAfterTheTtl_andLatestForcesIt() throws Exception {
    seed("fresh/obj.txt", 1000, 10);
    assertThat(RemoteBuckets.get(cluster, "aws", BUCKET, "fresh/obj.txt", null).status()).isEqualTo(200);
    byte[] v2 = seed("fresh/obj.txt", 1200, 11);
    // Once the bucket's 1 s TTL has passed since the copy was committed (which a busy machine may delay a little
    // past the client's last byte), a plain GET revalidates and fetches the new version.
    Awaitility.await().pollDelay(Duration.ofMillis(1100)).pollInterval(Duration.ofMillis(200))
        .atMost(Duration.ofSeconds(15)).untilAsserted(() ->
            assertThat(RemoteBuckets.get(cluster, "aws", BUCKET, "fresh/obj.txt", null).body()).isEqualTo(v2));
    byte[] v3 = seed("fresh/obj.txt", 1300, 12);
    assertThat(RemoteBuckets.get(cluster, "aws", BUCKET, "fresh/obj.txt", "latest=true").body()).isEqualTo(v3);
  }

  @Test
  void remotelyDeletedObject_is404_andDroppedLocally_inSyncMode() throws Exception {
    seed("fresh/deleted.txt", 500, 13);
    assertThat(RemoteBuckets.get(cluster, "aws", BUCKET, "fresh/deleted.txt", null).status()).isEqualTo(200);
    backend.deleteObject(b -> b.bucket(BUCKET).key("fresh/deleted.txt"));
    assertThat(RemoteBuckets.get(cluster, "aws", BUCKET, "fresh/deleted.txt", "latest=true").status()).isEqualTo(404);
    assertThat(cachedNames()).doesNotContain("fresh/deleted.txt");
  }

  @Test
  void put_writesThrough_andAFailedBackendPut_cachesNothing() throws Exception {
    byte[] data = Content.bytes(14, 300_000);
    Http.Reply ok = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(RemoteBuckets.objectUrl(cluster, "aws",
        BUCKET, "wt/ok.bin", null))).PUT(HttpRequest.BodyPublishers.ofByteArray(data)));
    assertThat(ok.status()).as(ok.bodyText()).isEqualTo(200);
    assertThat(backend.getObjectAsBytes(b -> b.bucket(BUCKET).key("wt/ok.bin")).asByteArray()).isEqualTo(data);

    faults.inject(r -> r.method().equals("PUT") && r.pathAndQuery().contains("wt/fail.bin"),
        new FaultProxy.Fault.Status(403), -1);
    Http.Reply failed = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(RemoteBuckets.objectUrl(cluster,
        "aws", BUCKET, "wt/fail.bin", null))).PUT(HttpRequest.BodyPublishers.ofByteArray(data)));
    assertThat(failed.status()).isEqualTo(403);
    assertThat(cachedNames()).doesNotContain("wt/fail.bin");
  }

  @Test
  void listing_pagesThroughTheRemote_andMarksCachedObjects() throws Exception {
    for (int i = 0; i < 5; i++) {
      seed("list/obj-" + i, 100, 20 + i);
    }
    assertThat(RemoteBuckets.get(cluster, "aws", BUCKET, "list/obj-2", null).status()).isEqualTo(200);
    List<String> names = new ArrayList<>();
    List<String> cached = new ArrayList<>();
    String token = null;
    do {
      Http.Reply page = Http.get(cluster.endpoint() + "/v1/buckets/" + BUCKET + "?provider=aws&prefix=list/&limit=2"
          + (token == null ? "" : "&token=" + token));
      assertThat(page.status()).isEqualTo(200);
      JsonNode p = ClusterJson.mapper().readTree(page.body());
      for (JsonNode e : p.path("entries")) {
        names.add(e.path("name").asText());
        if (e.path("cached").asBoolean()) {
          cached.add(e.path("name").asText());
        }
      }
      token = p.hasNonNull("token") ? p.path("token").asText() : null;
    } while (token != null);
    assertThat(names).containsExactly("list/obj-0", "list/obj-1", "list/obj-2", "list/obj-3", "list/obj-4");
    assertThat(cached).containsExactly("list/obj-2");
  }

  private static S3Client granaryS3() {
    return S3Client.builder().endpointOverride(URI.create(cluster.endpoint()))
        .region(Region.US_EAST_1).forcePathStyle(true).credentialsProvider(StaticCredentialsProvider.create(
            AwsBasicCredentials.create(cluster.credentials().accessKey(), cluster.credentials().secretKey())))
        .build();
  }

  @Test
  void multipartUploadThroughTheS3Api_isWrittenThrough() throws Exception {
    try (S3Client granary = granaryS3()) {
      byte[] part1 = Content.bytes(40, 5 * 1024 * 1024);
      byte[] part2 = Content.bytes(41, 1_000_000);
      String id = granary.createMultipartUpload(b -> b.bucket(BUCKET).key("mp/big.bin")).uploadId();
      String e1 = granary.uploadPart(b -> b.bucket(BUCKET).key("mp/big.bin").uploadId(id).partNumber(1),
          RequestBody.fromBytes(part1)).eTag();
      String e2 = granary.uploadPart(b -> b.bucket(BUCKET).key("mp/big.bin").uploadId(id).partNumber(2),
          RequestBody.fromBytes(part2)).eTag();
      granary.completeMultipartUpload(b -> b.bucket(BUCKET).key("mp/big.bin").uploadId(id).multipartUpload(
          u -> u.parts(p -> p.partNumber(1).eTag(e1), p -> p.partNumber(2).eTag(e2))));
      byte[] whole = new byte[part1.length + part2.length];
      System.arraycopy(part1, 0, whole, 0, part1.length);
      System.arraycopy(part2, 0, whole, part1.length, part2.length);
      assertThat(backend.getObjectAsBytes(b -> b.bucket(BUCKET).key("mp/big.bin")).asByteArray()).isEqualTo(whole);
      assertThat(cachedNames()).contains("mp/big.bin");
    }
  }

  @Test
  void copyObject_ofAnUncachedRemoteSource_intoTheRemoteBucket_isWrittenThroughAndCached() throws Exception {
    byte[] data = seed("copy/src.bin", 2_500_000, 42);
    try (S3Client granary = granaryS3()) {
      granary.copyObject(b -> b.sourceBucket(BUCKET).sourceKey("copy/src.bin").destinationBucket(BUCKET)
          .destinationKey("copy/dst.bin").metadataDirective("REPLACE").contentType("application/x-test"));
      // The source was cold-fetched (never cached before), the copy went to the remote store first.
      assertThat(backend.getObjectAsBytes(b -> b.bucket(BUCKET).key("copy/dst.bin")).asByteArray()).isEqualTo(data);
      assertThat(backend.headObject(b -> b.bucket(BUCKET).key("copy/dst.bin")).contentType())
          .isEqualTo("application/x-test");
      assertThat(awaitCached("copy/src.bin", "copy/dst.bin")).contains("copy/src.bin", "copy/dst.bin");
      long reads = faults.count(getOf("copy/dst.bin"));
      assertThat(granary.getObjectAsBytes(b -> b.bucket(BUCKET).key("copy/dst.bin")).asByteArray()).isEqualTo(data);
      assertThat(faults.count(getOf("copy/dst.bin"))).as("served from the cache").isEqualTo(reads);
    }
  }

  @Test
  void copyObject_fromARemoteBucket_intoALocalBucket_readsTheSourceThroughTheCache() throws Exception {
    byte[] data = seed("copy/to-local.bin", 1_200_000, 43);
    try (S3Client granary = granaryS3()) {
      granary.createBucket(b -> b.bucket("copy-local"));
      granary.copyObject(b -> b.sourceBucket(BUCKET).sourceKey("copy/to-local.bin").destinationBucket("copy-local")
          .destinationKey("here.bin"));
      assertThat(granary.getObjectAsBytes(b -> b.bucket("copy-local").key("here.bin")).asByteArray()).isEqualTo(data);
      Throwable missing = Assertions.catchThrowable(() -> granary.copyObject(b -> b.sourceBucket(BUCKET)
          .sourceKey("copy/no-such.bin").destinationBucket("copy-local").destinationKey("none.bin")));
      assertThat(missing).isInstanceOf(S3Exception.class);
      assertThat(((S3Exception) missing).statusCode()).isEqualTo(404);
    }
  }

  @Test
  void copyObject_intoTheRemoteBucket_refusedByTheRemote_isAnError_andCachesNothing() throws Exception {
    byte[] data = seed("copy/refused-src.bin", 300_000, 44);
    Predicate<FaultProxy.Recorded> putOfCopy = r -> r.method().equals("PUT")
        && r.pathAndQuery().startsWith("/" + BUCKET + "/copy/refused-dst.bin");
    faults.inject(putOfCopy, new FaultProxy.Fault.Status(403), -1);
    try (S3Client granary = granaryS3()) {
      Throwable refused = Assertions.catchThrowable(() -> granary.copyObject(b -> b.sourceBucket(BUCKET)
          .sourceKey("copy/refused-src.bin").destinationBucket(BUCKET).destinationKey("copy/refused-dst.bin")));
      assertThat(refused).isInstanceOf(S3Exception.class);
      assertThat(((S3Exception) refused).statusCode()).isEqualTo(403);
      assertThat(faults.count(putOfCopy)).isGreaterThanOrEqualTo(1);
      assertThat(cachedNames()).doesNotContain("copy/refused-dst.bin");
      assertThat(Assertions.catchThrowable(() -> backend.headObject(b -> b.bucket(BUCKET)
          .key("copy/refused-dst.bin")))).isInstanceOf(S3Exception.class);
      faults.clearFaults();
      assertThat(granary.getObjectAsBytes(b -> b.bucket(BUCKET).key("copy/refused-src.bin")).asByteArray())
          .isEqualTo(data);
    }
  }

  /** The cached names once they include {@code names} (fails after 10 s). */
  private static List<String> awaitCached(String... names) {
    return Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
        .until(ColdGetS3IT::cachedNames, cached -> cached.containsAll(List.of(names)));
  }

  private static List<String> cachedNames() throws Exception {
    return cachedNames(BUCKET);
  }

  private static List<String> cachedNames(String bucket) throws Exception {
    Http.Reply page = Http.get(cluster.endpoint() + "/v1/buckets/" + bucket + "?provider=aws&cached=true");
    List<String> names = new ArrayList<>();
    for (JsonNode e : ClusterJson.mapper().readTree(page.body()).path("entries")) {
      names.add(e.path("name").asText());
    }
    return names;
  }
}
