package io.granary.it.s3;

import static io.granary.it.s3.S3Support.assertS3Error;
import static io.granary.it.s3.S3Support.md5Hex;
import static io.granary.it.s3.S3Support.unquote;
import static org.assertj.core.api.Assertions.assertThat;

import io.granary.it.support.Content;
import io.granary.it.support.Http;
import io.granary.it.support.Names;
import io.granary.it.support.Resources;
import io.granary.it.support.TestCluster;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.CopyObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Conditional writes ({@code If-None-Match: *}, {@code If-Match: ETAG}) through a 2-target cluster, with the AWS SDK
 * (PutObject, CompleteMultipartUpload, CopyObject) and the native API: a failed precondition answers 412 (404 for
 * If-Match on a missing key) and changes nothing; a malformed header answers 400; of 16 writers racing to create one
 * key exactly one wins and its bytes are stored.
 */
class ConditionalWritesIT {
  private static final String BUCKET = "condwrites";
  private static final int WRITERS = 16;
  private static TestCluster cluster;
  private static S3Client s3;

  @BeforeAll
  static void start() throws Exception {
    cluster = TestCluster.start("condwrites", 2);
    s3 = S3Support.sync(cluster);
    s3.createBucket(b -> b.bucket(BUCKET));
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(s3, cluster);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String put(String key, byte[] data) {
    return s3.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromBytes(data)).eTag();
  }

  private static byte[] get(String key) {
    return s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asByteArray();
  }

  private static String etag(String key) {
    return s3.headObject(b -> b.bucket(BUCKET).key(key)).eTag();
  }

  /** The key holds exactly {@code data} with {@code etag}: nothing was changed. */
  private static void assertUnchanged(String key, byte[] data, String etag) {
    assertThat(get(key)).isEqualTo(data);
    assertThat(etag(key)).isEqualTo(etag);
  }

  // ------------------------------------------------------------------ PutObject

  @Test
  void putObject_ifNoneMatchStar_onExistingKey_is412_andChangesNothing() {
    String etag = put("put/exists", bytes("original"));

    assertS3Error(() -> s3.putObject(b -> b.bucket(BUCKET).key("put/exists").ifNoneMatch("*"),
        RequestBody.fromBytes(bytes("intruder"))), 412, "PreconditionFailed");

    assertUnchanged("put/exists", bytes("original"), etag);
  }

  @Test
  void putObject_ifNoneMatchStar_onNewKey_creates() {
    String etag = s3.putObject(b -> b.bucket(BUCKET).key("put/new").ifNoneMatch("*"),
        RequestBody.fromBytes(bytes("fresh"))).eTag();

    assertUnchanged("put/new", bytes("fresh"), etag);
  }

  @Test
  void putObject_ifMatchOtherEtag_is412_andChangesNothing() {
    String etag = put("put/cas", bytes("v1"));

    assertS3Error(() -> s3.putObject(b -> b.bucket(BUCKET).key("put/cas").ifMatch("\"" + md5Hex(bytes("v0")) + "\""),
        RequestBody.fromBytes(bytes("v2"))), 412, "PreconditionFailed");

    assertUnchanged("put/cas", bytes("v1"), etag);
  }

  @Test
  void putObject_ifMatchCurrentEtag_replaces() {
    String etag = put("put/cas-ok", bytes("v1"));

    String next = s3.putObject(b -> b.bucket(BUCKET).key("put/cas-ok").ifMatch(etag),
        RequestBody.fromBytes(bytes("v2"))).eTag();

    assertThat(unquote(next)).isEqualTo(md5Hex(bytes("v2")));
    assertUnchanged("put/cas-ok", bytes("v2"), next);
  }

  @Test
  void putObject_ifMatch_onMissingKey_isNoSuchKey_andStoresNothing() {
    assertS3Error(() -> s3.putObject(b -> b.bucket(BUCKET).key("put/missing").ifMatch("\"" + md5Hex(bytes("x")) + "\""),
        RequestBody.fromBytes(bytes("x"))), 404, "NoSuchKey");

    assertS3Error(() -> s3.headObject(b -> b.bucket(BUCKET).key("put/missing")), 404, null);
  }

  @Test
  void putObject_malformedPreconditions_are400_andChangeNothing() throws Exception {
    String etag = put("put/malformed", bytes("kept"));
    List<Map<String, String>> malformed = List.of(Map.of("If-Match", ""), Map.of("If-Match", "not an etag"),
        Map.of("If-Match", "\"unterminated"), Map.of("If-Match", "\"a\", \"b\""),
        Map.of("If-None-Match", "\"" + unquote(etag) + "\""),
        Map.of("If-Match", etag, "If-None-Match", "*"));
    for (Map<String, String> headers : malformed) {
      byte[] body = bytes("replaced?");
      Http.Reply r = S3Support.sendSigned(cluster, "PUT", "/" + BUCKET + "/put/malformed", headers, body, body);
      assertThat(r.status()).as("%s: %s", headers, r.bodyText()).isEqualTo(400);
      assertThat(S3Support.xmlText(r.bodyText(), "Code")).as(headers.toString()).isEqualTo("InvalidArgument");
    }

    assertUnchanged("put/malformed", bytes("kept"), etag);
  }

  // ------------------------------------------------------------------ CompleteMultipartUpload

  private static List<CompletedPart> uploadParts(String key, String uploadId, byte[] data) {
    int half = 5 << 20;
    List<CompletedPart> parts = new ArrayList<>();
    byte[][] pieces = {java.util.Arrays.copyOfRange(data, 0, half), java.util.Arrays.copyOfRange(data, half, data.length)};
    for (int i = 0; i < pieces.length; i++) {
      int number = i + 1;
      String e = s3.uploadPart(b -> b.bucket(BUCKET).key(key).uploadId(uploadId).partNumber(number),
          RequestBody.fromBytes(pieces[i])).eTag();
      parts.add(CompletedPart.builder().partNumber(number).eTag(e).build());
    }
    return parts;
  }

  @Test
  void completeMultipartUpload_failedPreconditions_are412_changeNothing_andTheRightEtagCompletes() {
    String key = "mpu/exists";
    String etag = put(key, bytes("small original"));
    byte[] data = Content.bytes(18, (5 << 20) + 1234);
    String uploadId = s3.createMultipartUpload(b -> b.bucket(BUCKET).key(key)).uploadId();
    List<CompletedPart> parts = uploadParts(key, uploadId, data);

    assertS3Error(() -> s3.completeMultipartUpload(b -> b.bucket(BUCKET).key(key).uploadId(uploadId).ifNoneMatch("*")
        .multipartUpload(m -> m.parts(parts))), 412, "PreconditionFailed");
    assertS3Error(() -> s3.completeMultipartUpload(b -> b.bucket(BUCKET).key(key).uploadId(uploadId)
        .ifMatch("\"" + md5Hex(bytes("other")) + "\"").multipartUpload(m -> m.parts(parts))), 412, "PreconditionFailed");
    assertUnchanged(key, bytes("small original"), etag);
    // The refused completions left the upload as it was.
    assertThat(s3.listParts(b -> b.bucket(BUCKET).key(key).uploadId(uploadId)).parts()).hasSize(2);

    String done = s3.completeMultipartUpload(b -> b.bucket(BUCKET).key(key).uploadId(uploadId).ifMatch(etag)
        .multipartUpload(m -> m.parts(parts))).eTag();
    assertThat(unquote(done)).endsWith("-2");
    assertUnchanged(key, data, done);
  }

  @Test
  void completeMultipartUpload_ifNoneMatchStar_onNewKey_creates() {
    String key = "mpu/new";
    byte[] data = Content.bytes(19, (5 << 20) + 1);
    String uploadId = s3.createMultipartUpload(b -> b.bucket(BUCKET).key(key)).uploadId();
    List<CompletedPart> parts = uploadParts(key, uploadId, data);

    String done = s3.completeMultipartUpload(b -> b.bucket(BUCKET).key(key).uploadId(uploadId).ifNoneMatch("*")
        .multipartUpload(m -> m.parts(parts))).eTag();

    assertUnchanged(key, data, done);
  }

  // ------------------------------------------------------------------ CopyObject (the SDK has no destination
  // conditions in this version: the headers are added to the signed request)

  private static void copy(String src, String dst, String header, String value) {
    s3.copyObject(CopyObjectRequest.builder().sourceBucket(BUCKET).sourceKey(src).destinationBucket(BUCKET)
        .destinationKey(dst).overrideConfiguration(o -> o.putHeader(header, value)).build());
  }

  /** A key {@code base-N} whose owner is (same) or is not the owner of {@code other}. */
  private static String keyOwnedLike(String base, String other, boolean same) throws Exception {
    String owner = cluster.owner(BUCKET, other).id();
    for (int i = 0; i < 1000; i++) {
      String k = base + "-" + i;
      if (cluster.owner(BUCKET, k).id().equals(owner) == same) {
        return k;
      }
    }
    throw new IllegalStateException("no key found");
  }

  @Test
  void copyObject_failedDestinationPreconditions_are412_andChangeNothing_onBothPaths() throws Exception {
    String src = "copy/src";
    byte[] data = bytes("copied content");
    put(src, data);
    // Source read from the destination target's own disk, and streamed from the other target.
    for (String dst : List.of(keyOwnedLike("copy/dst-local", src, true), keyOwnedLike("copy/dst-remote", src, false))) {
      String etag = put(dst, bytes("destination"));

      assertS3Error(() -> copy(src, dst, "If-None-Match", "*"), 412, "PreconditionFailed");
      assertS3Error(() -> copy(src, dst, "If-Match", "\"" + md5Hex(bytes("other")) + "\""), 412, "PreconditionFailed");
      assertUnchanged(dst, bytes("destination"), etag);

      copy(src, dst, "If-Match", etag);
      assertThat(get(dst)).as(dst).isEqualTo(data);
    }
  }

  @Test
  void copyObject_ifNoneMatchStar_onNewKey_creates_andIfMatchOnMissingKeyIsNoSuchKey() {
    byte[] data = bytes("copy me");
    put("copy/src2", data);

    assertS3Error(() -> copy("copy/src2", "copy/missing", "If-Match", "\"" + md5Hex(data) + "\""), 404, "NoSuchKey");
    copy("copy/src2", "copy/created", "If-None-Match", "*");

    assertThat(get("copy/created")).isEqualTo(data);
    assertS3Error(() -> s3.headObject(b -> b.bucket(BUCKET).key("copy/missing")), 404, null);
  }

  // ------------------------------------------------------------------ native API

  private static Http.Reply nativePut(String name, byte[] body, String... headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(), BUCKET, name)))
        .PUT(HttpRequest.BodyPublishers.ofByteArray(body));
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return Http.send(Http.FOLLOW, b);
  }

  private static Http.Reply nativeGet(String name) throws Exception {
    return Http.get(Names.url(cluster.endpoint(), BUCKET, name));
  }

  private static void assertNativeUnchanged(String name, byte[] data, String etag) throws Exception {
    Http.Reply r = nativeGet(name);
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.body()).isEqualTo(data);
    assertThat(r.header("etag")).contains(etag);
  }

  @Test
  void nativePut_preconditions_answerAsS3Does() throws Exception {
    Http.Reply first = nativePut("native/obj", bytes("one"), "If-None-Match", "*");
    assertThat(first.status()).as(first.bodyText()).isEqualTo(200);
    String etag = first.header("etag").orElseThrow();

    Http.Reply again = nativePut("native/obj", bytes("two"), "If-None-Match", "*");
    assertThat(again.status()).isEqualTo(412);
    assertThat(again.bodyText()).contains("PreconditionFailed");
    Http.Reply wrong = nativePut("native/obj", bytes("two"), "If-Match", "\"0123456789abcdef\"");
    assertThat(wrong.status()).isEqualTo(412);
    assertNativeUnchanged("native/obj", bytes("one"), etag);

    Http.Reply missing = nativePut("native/missing", bytes("x"), "If-Match", etag);
    assertThat(missing.status()).isEqualTo(404);
    assertThat(missing.bodyText()).contains("ObjectNotFound");
    assertThat(nativeGet("native/missing").status()).isEqualTo(404);

    for (String bad : List.of("", "not an etag", "W/" + etag)) {
      Http.Reply r = nativePut("native/obj", bytes("three"), "If-Match", bad);
      assertThat(r.status()).as("If-Match '%s': %s", bad, r.bodyText()).isEqualTo(400);
      assertThat(r.bodyText()).contains("InvalidArgument");
    }
    assertNativeUnchanged("native/obj", bytes("one"), etag);

    Http.Reply cas = nativePut("native/obj", bytes("two"), "If-Match", etag);
    assertThat(cas.status()).as(cas.bodyText()).isEqualTo(200);
    assertNativeUnchanged("native/obj", bytes("two"), cas.header("etag").orElseThrow());
  }

  // ------------------------------------------------------------------ races

  /** Runs {@code writers} at once (released together); returns, per writer, the status it got. */
  private static List<Integer> race(List<Callable<Integer>> writers) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(writers.size());
    try {
      CountDownLatch ready = new CountDownLatch(writers.size());
      CountDownLatch go = new CountDownLatch(1);
      List<Future<Integer>> futures = new ArrayList<>();
      for (Callable<Integer> w : writers) {
        futures.add(pool.submit(() -> {
          ready.countDown();
          go.await();
          return w.call();
        }));
      }
      ready.await();
      go.countDown();
      List<Integer> statuses = new ArrayList<>();
      for (Future<Integer> f : futures) {
        statuses.add(f.get());
      }
      return statuses;
    } finally {
      pool.shutdownNow();
    }
  }

  private static byte[] racerBody(int i) {
    return Content.bytes(1000 + i, 256 * 1024 + i); // distinct content and length per writer
  }

  @Test
  void racingIfNoneMatchPuts_s3_exactlyOneWins_andItsBytesAreStored() throws Exception {
    String key = "race/s3";
    List<Callable<Integer>> writers = new ArrayList<>();
    for (int i = 0; i < WRITERS; i++) {
      byte[] body = racerBody(i);
      writers.add(() -> {
        try {
          s3.putObject(b -> b.bucket(BUCKET).key(key).ifNoneMatch("*"), RequestBody.fromBytes(body));
          return 200;
        } catch (S3Exception e) {
          return e.statusCode();
        }
      });
    }

    List<Integer> statuses = race(writers);

    assertThat(statuses).filteredOn(s -> s == 200).hasSize(1);
    assertThat(statuses).filteredOn(s -> s != 200).containsOnly(412);
    int winner = statuses.indexOf(200);
    assertThat(get(key)).isEqualTo(racerBody(winner));
    assertThat(unquote(etag(key))).isEqualTo(md5Hex(racerBody(winner)));
  }

  @Test
  void racingIfNoneMatchPuts_native_exactlyOneWins_andItsBytesAreStored() throws Exception {
    String key = "race/native";
    List<Callable<Integer>> writers = new ArrayList<>();
    for (int i = 0; i < WRITERS; i++) {
      byte[] body = racerBody(i);
      writers.add(() -> nativePut(key, body, "If-None-Match", "*").status());
    }

    List<Integer> statuses = race(writers);

    assertThat(statuses).filteredOn(s -> s == 200).hasSize(1);
    assertThat(statuses).filteredOn(s -> s != 200).containsOnly(412);
    assertThat(nativeGet(key).body()).isEqualTo(racerBody(statuses.indexOf(200)));
  }
}
