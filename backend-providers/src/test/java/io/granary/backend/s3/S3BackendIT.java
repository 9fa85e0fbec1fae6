package io.granary.backend.s3;

import static io.granary.backend.BackendException.Kind.ACCESS_DENIED;
import static io.granary.backend.BackendException.Kind.CHANGED;
import static io.granary.backend.BackendException.Kind.INVALID_RANGE;
import static io.granary.backend.BackendException.Kind.NOT_FOUND;
import static io.granary.backend.BackendException.Kind.TRUNCATED;
import static io.granary.backend.BackendException.Kind.UNAVAILABLE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.granary.backend.Backend;
import io.granary.backend.BackendConfig;
import io.granary.backend.BackendException;
import io.granary.backend.Backends;
import io.granary.backend.PutAttributes;
import io.granary.backend.RemoteChecksum;
import io.granary.backend.RemoteObject;
import io.granary.backend.RemotePage;
import io.granary.backend.RemoteRead;
import io.granary.backend.TestData;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.clustermap.bucket.Provider;
import io.granary.testkit.FaultProxy;
import io.granary.testkit.FaultProxy.Fault;
import io.granary.testkit.FaultProxy.Recorded;
import io.granary.testkit.S3ProxyServer;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/** {@link S3Backend} against a real S3Proxy, directly and through a {@link FaultProxy}. */
class S3BackendIT {
  static final String BUCKET = "granary-it";

  @TempDir
  static Path tmp;
  static S3ProxyServer server;
  static FaultProxy proxy;
  static S3Client admin;
  static Path credentials;
  /** Straight to S3Proxy. */
  static Backend direct;
  /** Through the fault proxy, default timeouts. */
  static Backend proxied;
  /** Through the fault proxy with a 1 s read timeout, for stalls. */
  static Backend impatient;

  @BeforeAll
  static void start() throws Exception {
    server = S3ProxyServer.start(tmp.resolve("s3proxy"));
    credentials = server.writeCredentialsFile(tmp.resolve("credentials"));
    admin = S3Client.builder().endpointOverride(server.endpoint()).region(Region.US_EAST_1).forcePathStyle(true)
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .credentialsProvider(StaticCredentialsProvider.create(
            AwsBasicCredentials.create(S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY)))
        .build();
    admin.createBucket(b -> b.bucket(BUCKET));
    proxy = FaultProxy.start(server.endpoint());
    direct = Backends.open(config(server.endpoint(), credentials, Duration.ofSeconds(10)));
    proxied = Backends.open(config(proxy.endpoint(), credentials, Duration.ofSeconds(10)));
    impatient = Backends.open(config(proxy.endpoint(), credentials, Duration.ofSeconds(1)));
  }

  static BackendConfig config(URI endpoint, Path creds, Duration readTimeout) {
    return new BackendConfig(Provider.AWS, endpoint, null, true, creds, null, false, Duration.ofSeconds(2),
        readTimeout, 3, 8);
  }

  @AfterAll
  static void stop() {
    for (AutoCloseable c : new AutoCloseable[] {direct, proxied, impatient, admin, proxy, server}) {
      try {
        if (c != null) {
          c.close();
        }
      } catch (Exception ignored) {
        // best effort
      }
    }
  }

  @AfterEach
  void clearFaults() {
    proxy.clearFaults();
  }

  static RemoteObject seed(String key, byte[] content) throws Exception {
    Path f = TestData.file(tmp.resolve("seed-" + key.replace('/', '_')), content);
    return direct.put(BUCKET, key, f, new PutAttributes(content.length, TestData.md5Hex(content), null, Map.of()));
  }

  static Predicate<Recorded> get(String key) {
    return r -> r.method().equals("GET") && r.pathAndQuery().startsWith("/" + BUCKET + "/" + key);
  }

  @Test
  void put_small_thenHead_reportsEtagMd5TypeAndMeta() throws Exception {
    byte[] content = TestData.bytes(10_000, 1);
    Path f = TestData.file(tmp.resolve("small"), content);
    RemoteObject put = direct.put(BUCKET, "small", f,
        new PutAttributes(content.length, TestData.md5Hex(content), "application/x-test", Map.of("origin", "it")));
    assertThat(put.etag()).isEqualTo(TestData.md5Hex(content));

    RemoteObject head = direct.head(BUCKET, "small");
    assertThat(head.key()).isEqualTo("small");
    assertThat(head.size()).isEqualTo(10_000);
    assertThat(head.etag()).isEqualTo(put.etag());
    assertThat(head.md5()).isEqualTo(TestData.md5Hex(content));
    assertThat(head.crc32c()).isNull();
    assertThat(head.contentType()).isEqualTo("application/x-test");
    assertThat(head.userMeta()).containsEntry("origin", "it");
    assertThat(head.lastModified()).isPositive();

    // A GET reports what the HEAD does: the cold path records these from its first read.
    try (RemoteRead r = direct.read(BUCKET, "small", 0, 100, null)) {
      assertThat(r.object()).isEqualTo(head);
    }
  }

  @Test
  void read_keysThatNeedEncoding_areSignedAndAddressedExactly() throws Exception {
    // Spaces, '+', '%', unicode, reserved marks: S3 signs the path encoded once. (Keys with "//" or dot segments
    // are addressed verbatim too, see S3ObjectUrlsTest; S3Proxy's HTTP server normalizes such paths itself.)
    for (String key : List.of("enc/a b+c%d.bin", "enc/ünï/цифры.tar", "enc/~*'()!=&;,$@:")) {
      byte[] content = TestData.bytes(3000 + key.length(), key.hashCode());
      seed(key, content);
      try (RemoteRead r = direct.read(BUCKET, key, 0, -1, null)) {
        assertThat(r.object().key()).isEqualTo(key);
        assertThat(TestData.readAll(r, true)).as(key).isEqualTo(content);
      }
      try (RemoteRead r = proxied.read(BUCKET, key, 10, 100, null)) {
        assertThat(TestData.readAll(r, false)).as(key).isEqualTo(Arrays.copyOfRange(content, 10, 110));
      }
    }
    assertKind(() -> direct.read(BUCKET, "enc/a b+c%d.bin.missing", 0, -1, null), NOT_FOUND);
  }

  @Test
  void put_wrongMd5_isRejectedByTheRemote() throws Exception {
    byte[] content = TestData.bytes(1000, 2);
    Path f = TestData.file(tmp.resolve("badmd5"), content);
    assertThatThrownBy(() -> direct.put(BUCKET, "badmd5", f,
        new PutAttributes(content.length, TestData.md5Hex(new byte[] {1}), null, Map.of())))
        .isInstanceOfSatisfying(BackendException.class, e -> assertThat(e.remoteStatus()).isEqualTo(400));
  }

  @Test
  void read_wholeObject_intoDirectAndHeapBuffers() throws Exception {
    byte[] content = TestData.bytes(300_000, 3);
    seed("whole", content);
    try (RemoteRead r = direct.read(BUCKET, "whole", 0, -1, null)) {
      assertThat(r.length()).isEqualTo(content.length);
      assertThat(r.object().size()).isEqualTo(content.length);
      assertThat(r.object().etag()).isEqualTo(TestData.md5Hex(content));
      assertThat(TestData.readAll(r, true)).isEqualTo(content);
      assertThat(r.read(ByteBuffer.allocate(10))).isEqualTo(-1);
    }
    try (RemoteRead r = direct.read(BUCKET, "whole", 0, -1, null)) {
      assertThat(TestData.readAll(r, false)).isEqualTo(content);
    }
  }

  @Test
  void read_range_returnsSliceAndWholeSize() throws Exception {
    byte[] content = TestData.bytes(200_000, 4);
    RemoteObject obj = seed("range", content);
    try (RemoteRead r = proxied.read(BUCKET, "range", 1000, 70_000, obj)) {
      assertThat(r.offset()).isEqualTo(1000);
      assertThat(r.length()).isEqualTo(70_000);
      assertThat(r.object().size()).isEqualTo(200_000);
      assertThat(TestData.readAll(r, true)).isEqualTo(Arrays.copyOfRange(content, 1000, 71_000));
    }
    assertThat(proxy.requests()).anyMatch(q -> "bytes=1000-70999".equals(q.range()));
    // To the end from an offset; a range running past the end is clipped to what exists.
    try (RemoteRead r = direct.read(BUCKET, "range", 199_000, -1, null)) {
      assertThat(TestData.readAll(r, false)).isEqualTo(Arrays.copyOfRange(content, 199_000, 200_000));
    }
    try (RemoteRead r = direct.read(BUCKET, "range", 199_990, 100, null)) {
      assertThat(r.length()).isEqualTo(10);
      assertThat(TestData.readAll(r, false)).isEqualTo(Arrays.copyOfRange(content, 199_990, 200_000));
    }
  }

  @Test
  void read_pastEnd_throwsInvalidRange() throws Exception {
    seed("short", TestData.bytes(100, 5));
    assertKind(() -> direct.read(BUCKET, "short", 500, 10, null), INVALID_RANGE);
  }

  @Test
  void read_expectedVersion_afterOverwrite_throwsChanged() throws Exception {
    RemoteObject v1 = seed("changing", TestData.bytes(5000, 6));
    seed("changing", TestData.bytes(5000, 7));
    assertKind(() -> direct.read(BUCKET, "changing", 0, 1000, v1), CHANGED);
    RemoteObject v2 = direct.head(BUCKET, "changing");
    try (RemoteRead r = direct.read(BUCKET, "changing", 1000, 1000, v2)) {
      assertThat(TestData.readAll(r, true)).hasSize(1000);
    }
  }

  @Test
  void fullChecksum_isTheWholeObjectChecksumS3Keeps_orNothing() throws Exception {
    byte[] content = TestData.bytes(300_000, 40);
    CRC32C crc = new CRC32C();
    crc.update(content);
    byte[] raw = ByteBuffer.allocate(4).putInt((int) crc.getValue()).array();
    admin.putObject(b -> b.bucket(BUCKET).key("sum/crc32c").checksumCRC32C(Base64.getEncoder().encodeToString(raw)),
        RequestBody.fromBytes(content));
    RemoteObject v1 = direct.head(BUCKET, "sum/crc32c");
    assertThat(direct.fullChecksum(BUCKET, "sum/crc32c", v1))
        .isEqualTo(new RemoteChecksum(ChecksumType.CRC32C, HexFormat.of().formatHex(raw)));

    admin.putObject(b -> b.bucket(BUCKET).key("sum/none"), RequestBody.fromBytes(content)); // no checksum sent
    assertThat(direct.fullChecksum(BUCKET, "sum/none", null)).isNull();

    // A composite checksum (of the parts' checksums) is no checksum of the content: nothing to report.
    String id = admin.createMultipartUpload(b -> b.bucket(BUCKET).key("sum/composite")
        .checksumAlgorithm(software.amazon.awssdk.services.s3.model.ChecksumAlgorithm.CRC32)
        .checksumType(software.amazon.awssdk.services.s3.model.ChecksumType.COMPOSITE)).uploadId();
    CRC32 part = new CRC32();
    part.update(content);
    String partCrc = Base64.getEncoder().encodeToString(ByteBuffer.allocate(4).putInt((int) part.getValue()).array());
    String etag = admin.uploadPart(b -> b.bucket(BUCKET).key("sum/composite").uploadId(id).partNumber(1)
        .checksumCRC32(partCrc), RequestBody.fromBytes(content)).eTag();
    admin.completeMultipartUpload(b -> b.bucket(BUCKET).key("sum/composite").uploadId(id)
        .checksumType(software.amazon.awssdk.services.s3.model.ChecksumType.COMPOSITE)
        .multipartUpload(u -> u.parts(x -> x.partNumber(1).eTag(etag).checksumCRC32(partCrc))));
    assertThat(direct.head(BUCKET, "sum/composite").md5()).as("a multipart ETag is no MD5").isNull();
    assertThat(direct.fullChecksum(BUCKET, "sum/composite", null)).isNull();

    // Pinned to the version being read, like every ranged read of a fetch.
    admin.putObject(b -> b.bucket(BUCKET).key("sum/crc32c"), RequestBody.fromBytes(TestData.bytes(10, 41)));
    assertKind(() -> direct.fullChecksum(BUCKET, "sum/crc32c", v1), CHANGED);
  }

  @Test
  void missingKeyOrBucket_throwsNotFound() {
    assertKind(() -> direct.head(BUCKET, "no-such-key"), NOT_FOUND);
    assertKind(() -> direct.read(BUCKET, "no-such-key", 0, -1, null), NOT_FOUND);
    assertKind(() -> direct.head("no-such-bucket", "k"), NOT_FOUND);
    assertKind(() -> direct.list("no-such-bucket", "", null, null, null, 10), NOT_FOUND);
  }

  @Test
  void wrongSecret_throwsAccessDenied() throws Exception {
    Path bad = Files.writeString(tmp.resolve("bad-credentials"),
        "[default]\naws_access_key_id = " + S3ProxyServer.ACCESS_KEY + "\naws_secret_access_key = wrong\n");
    try (Backend b = Backends.open(config(server.endpoint(), bad, Duration.ofSeconds(5)))) {
      BackendException e = assertKind(() -> b.head(BUCKET, "anything"), ACCESS_DENIED);
      assertThat(e.getMessage()).doesNotContain("wrong");
      seed("guarded", TestData.bytes(100, 8));
      e = assertKind(() -> b.read(BUCKET, "guarded", 0, -1, null), ACCESS_DENIED);
      assertThat(e.remoteStatus()).isEqualTo(403);
      assertThat(e.getMessage()).contains("GET s3://" + BUCKET + "/guarded").doesNotContain("wrong");
    }
  }

  @Test
  void list_pagesWithPrefixDelimiterStartAfterAndToken() throws Exception {
    for (String k : List.of("list/a/1", "list/a/2", "list/b/1", "list/c", "list/d", "list/e", "other")) {
      admin.putObject(b -> b.bucket(BUCKET).key(k), RequestBody.fromString(k));
    }
    RemotePage rolled = direct.list(BUCKET, "list/", "/", null, null, 1000);
    assertThat(rolled.objects()).extracting(RemoteObject::key).containsExactly("list/c", "list/d", "list/e");
    assertThat(rolled.commonPrefixes()).containsExactly("list/a/", "list/b/");
    assertThat(rolled.nextToken()).isNull();
    assertThat(rolled.objects().get(0).size()).isEqualTo("list/c".length());
    assertThat(rolled.objects().get(0).etag()).isNotNull();

    List<String> keys = new ArrayList<>();
    String token = null;
    int pages = 0;
    do {
      RemotePage p = direct.list(BUCKET, "list/", null, null, token, 2);
      assertThat(p.objects().size()).isLessThanOrEqualTo(2);
      p.objects().forEach(o -> keys.add(o.key()));
      token = p.nextToken();
      pages++;
    } while (token != null);
    assertThat(keys).containsExactly("list/a/1", "list/a/2", "list/b/1", "list/c", "list/d", "list/e");
    assertThat(pages).isEqualTo(3);

    RemotePage after = direct.list(BUCKET, "list/", null, "list/c", null, 1000);
    assertThat(after.objects()).extracting(RemoteObject::key).containsExactly("list/d", "list/e");
  }

  @Test
  void put_large_goesMultipart_andReadsBackByteExact() throws Exception {
    long size = (65L << 20) + 123;
    Path f = TestData.file(tmp.resolve("large"), size, 8);
    proxy.resetCounts();
    RemoteObject put = proxied.put(BUCKET, "large", f,
        new PutAttributes(size, null, "application/octet-stream", Map.of("kind", "large")));
    assertThat(proxy.count(r -> r.method().equals("PUT") && r.pathAndQuery().contains("partNumber="))).isEqualTo(5);
    assertThat(put.etag()).endsWith("-5");
    assertThat(put.md5()).isNull();

    RemoteObject head = direct.head(BUCKET, "large");
    assertThat(head.size()).isEqualTo(size);
    assertThat(head.md5()).isNull();
    assertThat(head.userMeta()).containsEntry("kind", "large");
    try (RemoteRead r = direct.read(BUCKET, "large", 0, -1, head)) {
      assertThat(TestData.sha256(r)).isEqualTo(TestData.sha256(f));
    }
    Files.delete(f);
    direct.delete(BUCKET, "large");
  }

  @Test
  void delete_removesObject_andAbsentKeyIsFine() throws Exception {
    seed("doomed", TestData.bytes(10, 9));
    direct.delete(BUCKET, "doomed");
    assertKind(() -> direct.head(BUCKET, "doomed"), NOT_FOUND);
    direct.delete(BUCKET, "doomed");
  }

  @Test
  void read_after503Twice_isRetriedAndSucceeds() throws Exception {
    byte[] content = TestData.bytes(20_000, 10);
    seed("flaky", content);
    proxy.resetCounts();
    proxy.inject(get("flaky"), new Fault.Status(503), 2);
    try (RemoteRead r = proxied.read(BUCKET, "flaky", 0, -1, null)) {
      assertThat(TestData.readAll(r, true)).isEqualTo(content);
    }
    assertThat(proxy.count(get("flaky"))).isEqualTo(3);
  }

  @Test
  void read_503Always_throwsUnavailableAfterMaxAttempts() throws Exception {
    seed("down", TestData.bytes(100, 11));
    proxy.resetCounts();
    proxy.inject(get("down"), new Fault.Status(503), -1);
    BackendException e = assertKind(() -> proxied.read(BUCKET, "down", 0, -1, null), UNAVAILABLE);
    assertThat(e.remoteStatus()).isEqualTo(503);
    assertThat(proxy.count(get("down"))).isEqualTo(3);
  }

  @Test
  void read_truncatedBody_throwsTruncatedNeverCleanEof() throws Exception {
    seed("cut", TestData.bytes(200_000, 12));
    proxy.inject(get("cut"), new Fault.Truncate(70_000), 1);
    try (RemoteRead r = proxied.read(BUCKET, "cut", 0, -1, null)) {
      assertKind(() -> TestData.readAll(r, true), TRUNCATED);
    }
  }

  @Test
  void read_stallMidBody_failsWithinTheReadTimeout() throws Exception {
    seed("slow", TestData.bytes(200_000, 13));
    proxy.inject(get("slow"), new Fault.Stall(Duration.ofSeconds(10), 50_000), 1);
    long t0 = System.nanoTime();
    try (RemoteRead r = impatient.read(BUCKET, "slow", 0, -1, null)) {
      BackendException e = assertKind(() -> TestData.readAll(r, true), UNAVAILABLE);
      assertThat(e.getMessage()).contains("stalled");
    }
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
  }

  @Test
  void read_stallBeforeHead_isRetriedThenUnavailableWithinBound() throws Exception {
    seed("silent", TestData.bytes(1000, 14));
    proxy.resetCounts();
    proxy.inject(get("silent"), new Fault.Stall(Duration.ofSeconds(10), 0), -1);
    long t0 = System.nanoTime();
    BackendException e = assertKind(() -> impatient.read(BUCKET, "silent", 0, -1, null), UNAVAILABLE);
    assertThat(e.remoteStatus()).isZero();
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(8));
    assertThat(proxy.count(get("silent"))).isEqualTo(3);
  }

  @Test
  void read_corruptedByte_passesThroughUnverified() throws Exception {
    byte[] content = TestData.bytes(100_000, 15);
    seed("rotten", content);
    proxy.inject(get("rotten"), new Fault.Corrupt(12_345), 1);
    byte[] got;
    try (RemoteRead r = proxied.read(BUCKET, "rotten", 0, -1, null)) {
      got = TestData.readAll(r, true);
    }
    assertThat(got).isNotEqualTo(content);
    assertThat(got[12_345]).isEqualTo((byte) ~content[12_345]);
    got[12_345] = content[12_345];
    assertThat(got).isEqualTo(content);
  }

  @Test
  void close_beforeEnd_abortsWithoutReadingTheRest() throws Exception {
    seed("partial", TestData.bytes(2_000_000, 16));
    try (RemoteRead r = direct.read(BUCKET, "partial", 0, -1, null)) {
      ByteBuffer buf = ByteBuffer.allocateDirect(1000);
      assertThat(r.read(buf)).isPositive();
    }
    // The pool still works after an aborted connection.
    assertThat(direct.head(BUCKET, "partial").size()).isEqualTo(2_000_000);
  }

  interface Call {
    Object run() throws Exception;
  }

  static BackendException assertKind(Call call, BackendException.Kind kind) {
    try {
      call.run();
    } catch (BackendException e) {
      assertThat(e.kind()).as("kind of %s", e.getMessage()).isEqualTo(kind);
      return e;
    } catch (Exception e) {
      throw new AssertionError("expected BackendException " + kind + ", got " + e, e);
    }
    throw new AssertionError("expected BackendException " + kind + ", got no exception");
  }
}
