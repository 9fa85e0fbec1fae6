package io.granary.it.s3;

import static io.granary.it.s3.S3Support.assertS3Error;
import static io.granary.it.s3.S3Support.md5Hex;
import static io.granary.it.s3.S3Support.s3Error;
import static io.granary.it.s3.S3Support.unquote;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.granary.it.support.Content;
import io.granary.it.support.Http;
import io.granary.it.support.Names;
import io.granary.it.support.TestCluster;
import io.granary.it.support.Resources;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Object PUT, GET, HEAD and DELETE through the S3 API of a 2-target cluster with the AWS SDK's sync and async
 * clients and their default checksums: content of every size comes back byte-exact under keys of every shape, with
 * its MD5 ETag, Content-Type and user metadata; ranges, conditions and missing keys answer as S3 does; objects
 * written through S3 read through the native API and the reverse.
 */
class S3ObjectsIT {
  private static final String BUCKET = "s3objects";
  private static TestCluster cluster;
  private static S3Client s3;
  private static S3AsyncClient async;

  @BeforeAll
  static void start() throws Exception {
    cluster = TestCluster.start("s3objects", 2);
    s3 = S3Support.sync(cluster);
    async = S3Support.async(cluster);
    s3.createBucket(b -> b.bucket(BUCKET));
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(s3, async, cluster);
  }

  private static PutObjectResponse put(String key, byte[] data) {
    return s3.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromBytes(data));
  }

  private static ResponseBytes<GetObjectResponse> get(String key) {
    return s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key));
  }

  @Test
  void syncClient_putGetHead_randomBinaryOfEverySize_isByteExact_withMd5Etag() {
    int[] sizes = {0, 1, 1000, (1 << 20) + 7, 10 << 20};
    for (int i = 0; i < sizes.length; i++) {
      String key = "sync/size-" + sizes[i];
      byte[] data = Content.bytes(100 + i, sizes[i]);
      PutObjectResponse put = put(key, data);
      assertThat(unquote(put.eTag())).as(key).isEqualTo(md5Hex(data));

      ResponseBytes<GetObjectResponse> got = get(key);
      assertThat(got.asByteArray()).as(key).isEqualTo(data);
      assertThat(got.response().contentLength()).isEqualTo(sizes[i]);
      assertThat(unquote(got.response().eTag())).isEqualTo(md5Hex(data));

      HeadObjectResponse head = s3.headObject(b -> b.bucket(BUCKET).key(key));
      assertThat(head.contentLength()).isEqualTo(sizes[i]);
      assertThat(unquote(head.eTag())).isEqualTo(md5Hex(data));
      assertThat(head.lastModified()).isNotNull();
    }
  }

  @Test
  void asyncClient_putGetHead_randomBinary_isByteExact_withMd5Etag() {
    int[] sizes = {0, 12_345, 3 << 20, 10 << 20};
    for (int i = 0; i < sizes.length; i++) {
      String key = "async/size-" + sizes[i];
      byte[] data = Content.bytes(200 + i, sizes[i]);
      PutObjectResponse put = async.putObject(b -> b.bucket(BUCKET).key(key), AsyncRequestBody.fromBytes(data)).join();
      assertThat(unquote(put.eTag())).as(key).isEqualTo(md5Hex(data));

      ResponseBytes<GetObjectResponse> got = async.getObject(b -> b.bucket(BUCKET).key(key),
          AsyncResponseTransformer.toBytes()).join();
      assertThat(got.asByteArray()).as(key).isEqualTo(data);
      assertThat(unquote(got.response().eTag())).isEqualTo(md5Hex(data));

      HeadObjectResponse head = async.headObject(b -> b.bucket(BUCKET).key(key)).join();
      assertThat(head.contentLength()).isEqualTo(sizes[i]);
      // What one client wrote, the other reads.
      assertThat(get(key).asByteArray()).isEqualTo(data);
    }
  }

  @Test
  void defaultChecksums_syncSendsSignedAwsChunkedWithCrc32Trailer_asyncUnsignedTrailer_bothStored() {
    byte[] data = Content.bytes(250, 300_000);
    put("chunked/sync", data);
    // What the SDK sent: the tests above exercise the proxy's aws-chunked decoding and trailer checks.
    assertThat(S3Support.sentHeader("PutObject", "x-amz-content-sha256"))
        .isEqualTo("STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER");
    assertThat(S3Support.sentHeader("PutObject", "x-amz-trailer")).isEqualTo("x-amz-checksum-crc32");
    assertThat(S3Support.sentHeader("PutObject", "content-encoding")).contains("aws-chunked");
    assertThat(get("chunked/sync").asByteArray()).isEqualTo(data);

    async.putObject(b -> b.bucket(BUCKET).key("chunked/async"), AsyncRequestBody.fromBytes(data)).join();
    assertThat(S3Support.sentHeader("PutObject", "x-amz-content-sha256")).isEqualTo("STREAMING-UNSIGNED-PAYLOAD-TRAILER");
    assertThat(S3Support.sentHeader("PutObject", "x-amz-trailer")).isEqualTo("x-amz-checksum-crc32");
    assertThat(get("chunked/async").asByteArray()).isEqualTo(data);
  }

  @Test
  void keysWithSlashesSpacesUnicodeAndReservedCharacters_roundTrip_andListUnchanged() {
    List<String> keys = List.of("dir/sub/deeper/file.bin", "with space/and more spaces.txt", "ünïcødé/日本語/данные",
        "emoji/😀🙂", "plus+sign", "percent%25and%", "equals=sign&amp", "q?mark", "hash#tag", "semi;colon:colon",
        "tilde~star*paren(x)", "trailing/slash/", "a+b=c d%20e");
    Map<String, byte[]> written = new LinkedHashMap<>();
    int i = 0;
    for (String key : keys) {
      byte[] data = Content.bytes(300 + i, 1000 + i * 17);
      i++;
      if (i % 2 == 0) {
        async.putObject(b -> b.bucket(BUCKET).key(key), AsyncRequestBody.fromBytes(data)).join();
      } else {
        put(key, data);
      }
      written.put(key, data);
    }
    for (Map.Entry<String, byte[]> e : written.entrySet()) {
      assertThat(get(e.getKey()).asByteArray()).as(e.getKey()).isEqualTo(e.getValue());
      assertThat(async.getObject(b -> b.bucket(BUCKET).key(e.getKey()), AsyncResponseTransformer.toBytes()).join()
          .asByteArray()).as(e.getKey()).isEqualTo(e.getValue());
    }
    List<String> listed = new ArrayList<>();
    for (S3Object o : s3.listObjectsV2Paginator(b -> b.bucket(BUCKET)).contents()) {
      listed.add(o.key());
    }
    assertThat(listed).containsAll(keys);
    for (String key : keys) {
      assertThat(listed.stream().filter(key::equals)).as(key).hasSize(1);
    }
  }

  @Test
  void contentTypeAndUserMetadata_roundTrip_onGetAndHead() {
    String key = "meta/described.json";
    byte[] data = "{\"hello\":\"world\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    Map<String, String> meta = Map.of("owner", "team-ml", "dataset", "imagenet", "shard-index", "0042");
    s3.putObject(b -> b.bucket(BUCKET).key(key).contentType("application/json").metadata(meta),
        RequestBody.fromBytes(data));

    HeadObjectResponse head = s3.headObject(b -> b.bucket(BUCKET).key(key));
    assertThat(head.contentType()).isEqualTo("application/json");
    assertThat(head.metadata()).isEqualTo(meta);
    ResponseBytes<GetObjectResponse> got = get(key);
    assertThat(got.response().contentType()).isEqualTo("application/json");
    assertThat(got.response().metadata()).isEqualTo(meta);
    assertThat(got.asByteArray()).isEqualTo(data);

    // Overwriting replaces the metadata with the new PUT's, not a merge.
    s3.putObject(b -> b.bucket(BUCKET).key(key).contentType("text/plain").metadata(Map.of("owner", "other")),
        RequestBody.fromBytes(data));
    HeadObjectResponse after = s3.headObject(b -> b.bucket(BUCKET).key(key));
    assertThat(after.contentType()).isEqualTo("text/plain");
    assertThat(after.metadata()).isEqualTo(Map.of("owner", "other"));
  }

  @Test
  void contentEncoding_comesBackAsSpelled_byTheSyncClient_awsChunked_andTheAsyncClient() {
    byte[] data = "not really compressed".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    s3.putObject(b -> b.bucket(BUCKET).key("enc/sync").contentEncoding("deflate, gzip"), RequestBody.fromBytes(data));
    async.putObject(b -> b.bucket(BUCKET).key("enc/async").contentEncoding("deflate, gzip"),
        AsyncRequestBody.fromBytes(data)).join();
    for (String key : List.of("enc/sync", "enc/async")) {
      assertThat(s3.headObject(b -> b.bucket(BUCKET).key(key)).contentEncoding()).as(key).isEqualTo("deflate, gzip");
      ResponseBytes<GetObjectResponse> got = get(key);
      assertThat(got.response().contentEncoding()).as(key).isEqualTo("deflate, gzip");
      assertThat(got.asByteArray()).isEqualTo(data);
    }
  }

  @Test
  void aKeyAndKeysUnderItAsAPrefix_coexist() {
    byte[] parent = Content.bytes(410, 100);
    byte[] child = Content.bytes(411, 200);
    put("nest", parent);
    put("nest/child", child);
    put("nest/", new byte[0]); // a "folder marker", as consoles create them
    assertThat(get("nest").asByteArray()).isEqualTo(parent);
    assertThat(get("nest/child").asByteArray()).isEqualTo(child);
    assertThat(get("nest/").asByteArray()).isEmpty();
    assertThat(s3.listObjectsV2(b -> b.bucket(BUCKET).prefix("nest")).contents()).extracting(S3Object::key)
        .containsExactly("nest", "nest/", "nest/child");
  }

  @Test
  void overwrite_replacesContentAndEtag() {
    String key = "overwrite/me";
    byte[] first = Content.bytes(400, 50_000);
    byte[] second = Content.bytes(401, 20_000);
    put(key, first);
    PutObjectResponse r = put(key, second);
    assertThat(unquote(r.eTag())).isEqualTo(md5Hex(second));
    assertThat(get(key).asByteArray()).isEqualTo(second);
    assertThat(s3.headObject(b -> b.bucket(BUCKET).key(key)).contentLength()).isEqualTo(20_000L);
  }

  @Test
  void rangeGets_return206WithExactBytes_andUnsatisfiableRangeIs416InvalidRange() {
    String key = "ranges/object";
    int size = 1_000_000;
    byte[] data = Content.bytes(500, size);
    put(key, data);

    ResponseBytes<GetObjectResponse> mid = s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key).range("bytes=1000-1999"));
    assertThat(mid.asByteArray()).isEqualTo(java.util.Arrays.copyOfRange(data, 1000, 2000));
    assertThat(mid.response().contentRange()).isEqualTo("bytes 1000-1999/" + size);
    assertThat(mid.response().contentLength()).isEqualTo(1000L);

    ResponseBytes<GetObjectResponse> suffix = s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key).range("bytes=-500"));
    assertThat(suffix.asByteArray()).isEqualTo(java.util.Arrays.copyOfRange(data, size - 500, size));
    assertThat(suffix.response().contentRange()).isEqualTo("bytes " + (size - 500) + "-" + (size - 1) + "/" + size);

    ResponseBytes<GetObjectResponse> open = s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key).range("bytes=999990-"));
    assertThat(open.asByteArray()).isEqualTo(java.util.Arrays.copyOfRange(data, 999_990, size));

    ResponseBytes<GetObjectResponse> past = s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key).range("bytes=999999-5000000"));
    assertThat(past.asByteArray()).containsExactly(data[size - 1]);

    ResponseBytes<GetObjectResponse> asyncRange = async.getObject(b -> b.bucket(BUCKET).key(key).range("bytes=0-0"),
        AsyncResponseTransformer.toBytes()).join();
    assertThat(asyncRange.asByteArray()).containsExactly(data[0]);

    assertS3Error(() -> s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key).range("bytes=" + size + "-")), 416,
        "InvalidRange");
    // The object is still whole.
    assertThat(get(key).asByteArray()).isEqualTo(data);
  }

  @Test
  void rangeRequestOnTheRawHttpLevel_answers206_withContentRangeHeader() throws Exception {
    String key = "ranges/raw";
    byte[] data = Content.bytes(501, 4096);
    put(key, data);
    var presigned = S3Support.presigner(cluster).presignGetObject(p -> p.signatureDuration(java.time.Duration.ofMinutes(5))
        .getObjectRequest(g -> g.bucket(BUCKET).key(key)));
    Http.Reply r = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(presigned.url().toURI()).header("Range", "bytes=10-19").GET());
    assertThat(r.status()).isEqualTo(206);
    assertThat(r.header("content-range")).contains("bytes 10-19/4096");
    assertThat(r.body()).isEqualTo(java.util.Arrays.copyOfRange(data, 10, 20));
    Http.Reply bad = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(presigned.url().toURI()).header("Range", "bytes=5000-6000").GET());
    assertThat(bad.status()).isEqualTo(416);
    assertThat(bad.header("content-range")).contains("bytes */4096");
    assertThat(bad.bodyText()).contains("<Code>InvalidRange</Code>");
  }

  @Test
  void conditionalGets_answer304And412_asS3Does() {
    String key = "conditional/object";
    byte[] data = Content.bytes(600, 70_000);
    String etag = put(key, data).eTag();
    Instant modified = s3.headObject(b -> b.bucket(BUCKET).key(key)).lastModified();
    Instant past = modified.minusSeconds(3600);
    Instant future = modified.plusSeconds(3600);

    // If-None-Match with the current ETag: 304 Not Modified.
    S3Exception notModified = s3Error(() -> s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key).ifNoneMatch(etag)));
    assertThat(notModified.statusCode()).isEqualTo(304);
    // ... with another ETag: the object.
    assertThat(s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key).ifNoneMatch("\"0123456789abcdef\"")).asByteArray())
        .isEqualTo(data);

    // If-Match: the object when it matches, 412 PreconditionFailed when it does not.
    assertThat(s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key).ifMatch(etag)).asByteArray()).isEqualTo(data);
    assertS3Error(() -> s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key).ifMatch("\"0123456789abcdef\"")), 412,
        "PreconditionFailed");

    // If-Modified-Since: 304 when not modified since, the object when modified since.
    assertThat(s3Error(() -> s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key).ifModifiedSince(future))).statusCode())
        .isEqualTo(304);
    assertThat(s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key).ifModifiedSince(past)).asByteArray()).isEqualTo(data);

    // If-Unmodified-Since: the object when unmodified since, 412 when modified since.
    assertThat(s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key).ifUnmodifiedSince(future)).asByteArray())
        .isEqualTo(data);
    assertS3Error(() -> s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key).ifUnmodifiedSince(past)), 412,
        "PreconditionFailed");

    // HEAD applies the same conditions.
    assertThat(s3Error(() -> s3.headObject(b -> b.bucket(BUCKET).key(key).ifNoneMatch(etag))).statusCode())
        .isEqualTo(304);
    assertThat(s3Error(() -> s3.headObject(b -> b.bucket(BUCKET).key(key).ifMatch("\"nope\""))).statusCode())
        .isEqualTo(412);
    assertThat(s3.headObject(b -> b.bucket(BUCKET).key(key).ifMatch(etag)).contentLength()).isEqualTo(70_000L);
  }

  @Test
  void missingKey_headIs404_getIsNoSuchKey_deleteSucceeds() {
    String key = "missing/never-written";
    Throwable head = catchThrowable(() -> s3.headObject(b -> b.bucket(BUCKET).key(key)));
    assertThat(head).isInstanceOf(S3Exception.class);
    assertThat(((S3Exception) head).statusCode()).isEqualTo(404);
    assertThat(head).isInstanceOf(NoSuchKeyException.class);

    Throwable asyncHead = catchThrowable(() -> async.headObject(b -> b.bucket(BUCKET).key(key)).join());
    assertThat(asyncHead).isInstanceOf(CompletionException.class).hasCauseInstanceOf(NoSuchKeyException.class);

    S3Exception get = assertS3Error(() -> get(key), 404, "NoSuchKey");
    assertThat(get).isInstanceOf(NoSuchKeyException.class);

    // S3 answers a delete of a missing key with 204, and SDKs treat it as success.
    assertThat(s3.deleteObject(b -> b.bucket(BUCKET).key(key)).sdkHttpResponse().statusCode()).isEqualTo(204);
    assertThat(async.deleteObject(b -> b.bucket(BUCKET).key(key)).join().sdkHttpResponse().isSuccessful()).isTrue();
  }

  @Test
  void missingBucket_isNoSuchBucket() {
    assertS3Error(() -> s3.getObjectAsBytes(b -> b.bucket("no-such-bucket-here").key("k")), 404, "NoSuchBucket");
    assertS3Error(() -> put2("no-such-bucket-here"), 404, "NoSuchBucket");
  }

  private static void put2(String bucket) {
    s3.putObject(b -> b.bucket(bucket).key("k"), RequestBody.fromBytes(new byte[10]));
  }

  @Test
  void delete_removesTheObject_fromGetHeadAndListing() {
    String key = "delete/me please";
    put(key, Content.bytes(700, 5000));
    assertThat(s3.deleteObject(b -> b.bucket(BUCKET).key(key)).sdkHttpResponse().statusCode()).isEqualTo(204);
    assertS3Error(() -> get(key), 404, "NoSuchKey");
    assertThat(catchThrowable(() -> s3.headObject(b -> b.bucket(BUCKET).key(key)))).isInstanceOf(NoSuchKeyException.class);
    assertThat(s3.listObjectsV2(b -> b.bucket(BUCKET).prefix("delete/")).contents()).isEmpty();

    String asyncKey = "delete/async";
    async.putObject(b -> b.bucket(BUCKET).key(asyncKey), AsyncRequestBody.fromBytes(new byte[] {1, 2, 3})).join();
    async.deleteObject(b -> b.bucket(BUCKET).key(asyncKey)).join();
    assertS3Error(() -> get(asyncKey), 404, "NoSuchKey");
  }

  @Test
  void s3WrittenObject_readsByteExact_throughTheNativeApi() throws Exception {
    String key = "interop/from s3/ünï+code%.bin";
    byte[] data = Content.bytes(800, 2_500_000);
    put(key, data);
    Http.Reply r = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(), BUCKET, key))).GET());
    assertThat(r.status()).as(S3Support.brief(r)).isEqualTo(200);
    assertThat(r.body()).isEqualTo(data);
  }

  @Test
  void nativeWrittenObject_readsByteExact_throughS3_withTheChecksumAsEtag() throws Exception {
    String key = "interop/from native/データ+1%.bin";
    byte[] data = Content.bytes(801, 1_234_567);
    Http.Reply put = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(), BUCKET, key)))
        .PUT(HttpRequest.BodyPublishers.ofByteArray(data)));
    assertThat(put.status()).as(S3Support.brief(put)).isEqualTo(200);
    String checksum = put.header("granary-checksum-value").orElseThrow();

    ResponseBytes<GetObjectResponse> got = get(key);
    assertThat(got.asByteArray()).isEqualTo(data);
    // A native PUT computes no MD5: the S3 ETag is the object's checksum value.
    assertThat(unquote(got.response().eTag())).isEqualTo(checksum);
    HeadObjectResponse head = s3.headObject(b -> b.bucket(BUCKET).key(key));
    assertThat(unquote(head.eTag())).isEqualTo(checksum);
    assertThat(head.contentLength()).isEqualTo((long) data.length);
    // Conditions use that ETag too.
    assertThat(s3Error(() -> s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key).ifNoneMatch(head.eTag()))).statusCode())
        .isEqualTo(304);
  }

  @Test
  void s3PrefixEndpoint_servesTheSameObjects() {
    String key = "prefix/under-s3";
    byte[] data = Content.bytes(900, 10_000);
    put(key, data);
    try (S3Client under = S3Support.sync(cluster.endpoint() + "/s3", S3Support.credentials(cluster))) {
      assertThat(under.getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asByteArray()).isEqualTo(data);
      byte[] other = Content.bytes(901, 3000);
      under.putObject(b -> b.bucket(BUCKET).key("prefix/written-under-s3"), RequestBody.fromBytes(other));
      assertThat(get("prefix/written-under-s3").asByteArray()).isEqualTo(other);
    }
  }

  @Test
  void manyConcurrentPutsAndGets_throughTheProxy_areByteExact() {
    int n = 48;
    List<java.util.concurrent.CompletableFuture<?>> puts = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      int size = (i % 7) * 300_000 + i;
      byte[] data = Content.bytes(1000 + i, size);
      String key = "concurrent/" + i;
      puts.add(async.putObject(b -> b.bucket(BUCKET).key(key), AsyncRequestBody.fromBytes(data))
          .thenAccept(r -> assertThat(unquote(r.eTag())).as(key).isEqualTo(md5Hex(data))));
    }
    java.util.concurrent.CompletableFuture.allOf(puts.toArray(java.util.concurrent.CompletableFuture[]::new)).join();
    List<java.util.concurrent.CompletableFuture<?>> gets = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      int size = (i % 7) * 300_000 + i;
      byte[] data = Content.bytes(1000 + i, size);
      String key = "concurrent/" + i;
      gets.add(async.getObject(b -> b.bucket(BUCKET).key(key), AsyncResponseTransformer.toBytes())
          .thenAccept(r -> assertThat(r.asByteArray()).as(key).isEqualTo(data)));
    }
    java.util.concurrent.CompletableFuture.allOf(gets.toArray(java.util.concurrent.CompletableFuture[]::new)).join();
  }

  @Test
  void readsDuringOverwrites_seeOneWholeVersion_withItsEtag() throws Exception {
    String key = "overwrite/contended";
    byte[] a = Content.bytes(1100, 1_000_000);
    byte[] b2 = Content.bytes(1101, 700_000);
    put(key, a);
    java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
    Thread writer = new Thread(() -> {
      for (int i = 0; i < 30 && !stop.get(); i++) {
        put(key, i % 2 == 0 ? b2 : a);
      }
    });
    writer.start();
    try {
      for (int i = 0; i < 30; i++) {
        ResponseBytes<GetObjectResponse> got = get(key);
        byte[] body = got.asByteArray();
        assertThat(body.length == a.length ? body : b2).as("a whole version").isEqualTo(body.length == a.length ? a : b2);
        assertThat(unquote(got.response().eTag())).isEqualTo(md5Hex(body));
      }
    } finally {
      stop.set(true);
      writer.join(60_000);
    }
  }
}
