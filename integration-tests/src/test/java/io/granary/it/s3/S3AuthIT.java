package io.granary.it.s3;

import static io.granary.it.s3.S3Support.assertS3Error;
import static io.granary.it.s3.S3Support.md5Hex;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.granary.it.support.Content;
import io.granary.it.support.Http;
import io.granary.it.support.SigV4;
import io.granary.it.support.TestCluster;
import io.granary.it.support.Resources;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;
import software.amazon.awssdk.services.s3.presigner.model.PresignedGetObjectRequest;
import software.amazon.awssdk.services.s3.presigner.model.PresignedPutObjectRequest;

/**
 * Who may use the S3 API: requests signed with the cluster's key pair (SigV4 headers, aws-chunked signatures or a
 * presigned URL) are served; a wrong secret, an unknown key, no signature, an expired or altered URL, and a body
 * that is not the one signed are refused, and a refused write stores nothing.
 */
class S3AuthIT {
  private static final String BUCKET = "s3auth";
  private static final String KEY = "auth/object";
  private static final byte[] DATA = Content.bytes(1, 300_000);
  private static TestCluster cluster;
  private static S3Client s3;
  private static S3Presigner presigner;

  @BeforeAll
  static void start() throws Exception {
    cluster = TestCluster.start("s3auth", 1);
    s3 = S3Support.sync(cluster);
    presigner = S3Support.presigner(cluster);
    s3.createBucket(b -> b.bucket(BUCKET));
    s3.putObject(b -> b.bucket(BUCKET).key(KEY), RequestBody.fromBytes(DATA));
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(presigner, s3, cluster);
  }

  private static void assertAbsent(String key) {
    assertThat(catchThrowable(() -> s3.headObject(b -> b.bucket(BUCKET).key(key)))).as(key)
        .isInstanceOf(NoSuchKeyException.class);
  }

  @Test
  void wrongSecret_is403SignatureDoesNotMatch_onReadsAndWrites_andStoresNothing() {
    try (S3Client bad = S3Support.sync(cluster.endpoint(),
        S3Support.credentials(cluster.credentials().accessKey(), cluster.credentials().secretKey() + "x"))) {
      assertS3Error(() -> bad.getObjectAsBytes(b -> b.bucket(BUCKET).key(KEY)), 403, "SignatureDoesNotMatch");
      assertS3Error(() -> bad.listObjectsV2(b -> b.bucket(BUCKET)), 403, "SignatureDoesNotMatch");
      assertS3Error(() -> bad.listBuckets(), 403, "SignatureDoesNotMatch");
      assertS3Error(() -> bad.putObject(b -> b.bucket(BUCKET).key("auth/bad-secret"), RequestBody.fromBytes(DATA)),
          403, "SignatureDoesNotMatch");
      assertS3Error(() -> bad.deleteObject(b -> b.bucket(BUCKET).key(KEY)), 403, "SignatureDoesNotMatch");
      assertS3Error(() -> bad.createBucket(b -> b.bucket("s3auth-bad")), 403, "SignatureDoesNotMatch");
    }
    assertAbsent("auth/bad-secret");
    assertThat(s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(KEY)).asByteArray()).isEqualTo(DATA);
    assertThat(catchThrowable(() -> s3.headBucket(b -> b.bucket("s3auth-bad")))).isInstanceOf(S3Exception.class);
  }

  @Test
  void unknownAccessKey_is403InvalidAccessKeyId() {
    try (S3Client bad = S3Support.sync(cluster.endpoint(),
        S3Support.credentials("GRNOSUCHKEY000000000", cluster.credentials().secretKey()))) {
      assertS3Error(() -> bad.getObjectAsBytes(b -> b.bucket(BUCKET).key(KEY)), 403, "InvalidAccessKeyId");
      assertS3Error(() -> bad.putObject(b -> b.bucket(BUCKET).key("auth/unknown-key"), RequestBody.fromString("x")),
          403, "InvalidAccessKeyId");
    }
    assertAbsent("auth/unknown-key");
  }

  @Test
  void anySigningRegion_isAccepted_withTheRightKeys() {
    try (S3Client other = S3Client.builder().endpointOverride(URI.create(cluster.endpoint())).region(Region.EU_WEST_1)
        .forcePathStyle(true).credentialsProvider(S3Support.credentials(cluster))
        .httpClientBuilder(software.amazon.awssdk.http.apache.ApacheHttpClient.builder()).build()) {
      assertThat(other.getObjectAsBytes(b -> b.bucket(BUCKET).key(KEY)).asByteArray()).isEqualTo(DATA);
    }
  }

  @Test
  void unsignedRequests_are403AccessDenied_withAnXmlError_andStoreNothing() throws Exception {
    String object = cluster.endpoint() + "/" + BUCKET + "/" + KEY;
    List<HttpRequest.Builder> requests = List.of(
        HttpRequest.newBuilder(URI.create(object)).GET(),
        HttpRequest.newBuilder(URI.create(cluster.endpoint() + "/s3/" + BUCKET + "/" + KEY)).GET(),
        HttpRequest.newBuilder(URI.create(cluster.endpoint() + "/")).GET(),
        HttpRequest.newBuilder(URI.create(cluster.endpoint() + "/" + BUCKET + "?list-type=2")).GET(),
        HttpRequest.newBuilder(URI.create(cluster.endpoint() + "/" + BUCKET + "/auth/unsigned-put"))
            .PUT(HttpRequest.BodyPublishers.ofByteArray(DATA)),
        HttpRequest.newBuilder(URI.create(object)).DELETE(),
        HttpRequest.newBuilder(URI.create(cluster.endpoint() + "/s3auth-unsigned"))
            .PUT(HttpRequest.BodyPublishers.noBody()));
    for (HttpRequest.Builder b : requests) {
      Http.Reply r = Http.send(Http.NO_FOLLOW, b);
      String what = b.build().method() + " " + b.build().uri();
      assertThat(r.status()).as(what).isEqualTo(403);
      assertThat(r.header("content-type").orElse("")).as(what).contains("xml");
      assertThat(r.bodyText()).as(what).contains("<Error>").contains("<Code>AccessDenied</Code>");
    }
    Http.Reply head = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(object))
        .method("HEAD", HttpRequest.BodyPublishers.noBody()));
    assertThat(head.status()).isEqualTo(403);

    assertAbsent("auth/unsigned-put");
    assertThat(s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(KEY)).asByteArray()).isEqualTo(DATA);
    assertThat(s3.listBuckets().buckets()).noneMatch(b -> b.name().equals("s3auth-unsigned"));
  }

  @Test
  void presignedGet_fetchedWithAPlainHttpClient_isByteExact() throws Exception {
    PresignedGetObjectRequest p = presigner.presignGetObject(r -> r.signatureDuration(Duration.ofMinutes(5))
        .getObjectRequest(g -> g.bucket(BUCKET).key(KEY)));
    assertThat(p.url().getQuery()).contains("X-Amz-Signature=");
    Http.Reply r = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(p.url().toURI()).GET());
    assertThat(r.status()).as(S3Support.brief(r)).isEqualTo(200);
    assertThat(r.body()).isEqualTo(DATA);
    assertThat(r.header("etag")).contains("\"" + md5Hex(DATA) + "\"");

    // A key with characters that need escaping.
    String odd = "auth/presigned ünï+code=%.bin";
    byte[] oddData = Content.bytes(2, 1000);
    s3.putObject(b -> b.bucket(BUCKET).key(odd), RequestBody.fromBytes(oddData));
    PresignedGetObjectRequest po = presigner.presignGetObject(q -> q.signatureDuration(Duration.ofMinutes(5))
        .getObjectRequest(g -> g.bucket(BUCKET).key(odd)));
    Http.Reply ro = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(po.url().toURI()).GET());
    assertThat(ro.status()).as(S3Support.brief(ro)).isEqualTo(200);
    assertThat(ro.body()).isEqualTo(oddData);
  }

  @Test
  void presignedGet_afterItsExpiry_is403() throws Exception {
    // Signed ten minutes ago for one minute: expired now, without waiting for it.
    URI expired = SigV4.presignGet(cluster.endpoint() + "/" + BUCKET + "/" + KEY,
        java.time.Instant.now().minus(Duration.ofMinutes(10)), Duration.ofMinutes(1),
        cluster.credentials().accessKey(), cluster.credentials().secretKey());
    Http.Reply r = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(expired).GET());
    assertThat(r.status()).isEqualTo(403);
    assertThat(r.bodyText()).contains("<Code>AccessDenied</Code>").contains("expired");
    assertThat(r.body()).isNotEqualTo(DATA);
  }

  @Test
  void tamperedPresignedUrl_is403() throws Exception {
    String other = "auth/other-object";
    s3.putObject(b -> b.bucket(BUCKET).key(other), RequestBody.fromString("other"));
    PresignedGetObjectRequest p = presigner.presignGetObject(r -> r.signatureDuration(Duration.ofMinutes(5))
        .getObjectRequest(g -> g.bucket(BUCKET).key(KEY)));
    String url = p.url().toString();

    // Another key under the same signature.
    Http.Reply otherKey = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(url.replace(KEY, other))).GET());
    assertThat(otherKey.status()).isEqualTo(403);
    assertThat(otherKey.bodyText()).contains("<Code>SignatureDoesNotMatch</Code>");
    // A longer validity than was signed.
    Http.Reply longer = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(
        URI.create(url.replaceFirst("X-Amz-Expires=\\d+", "X-Amz-Expires=604800"))).GET());
    assertThat(longer.status()).isEqualTo(403);
    // Another signature.
    String sig = url.replaceFirst(".*X-Amz-Signature=([0-9a-f]{64}).*", "$1");
    String flipped = (sig.charAt(0) == '0' ? "1" : "0") + sig.substring(1);
    Http.Reply badSig = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(url.replace(sig, flipped))).GET());
    assertThat(badSig.status()).isEqualTo(403);
    assertThat(badSig.bodyText()).contains("<Code>SignatureDoesNotMatch</Code>");
    // A presigned GET does not allow a DELETE.
    Http.Reply delete = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(p.url().toURI()).DELETE());
    assertThat(delete.status()).isEqualTo(403);
    assertThat(s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(KEY)).asByteArray()).isEqualTo(DATA);
  }

  @Test
  void presignedPut_storesTheBody() throws Exception {
    String key = "auth/presigned-put";
    byte[] data = Content.bytes(3, 2_000_000);
    PresignedPutObjectRequest p = presigner.presignPutObject(r -> r.signatureDuration(Duration.ofMinutes(5))
        .putObjectRequest(o -> o.bucket(BUCKET).key(key)));
    Http.Reply r = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(p.url().toURI())
        .PUT(HttpRequest.BodyPublishers.ofByteArray(data)));
    assertThat(r.status()).as(S3Support.brief(r)).isEqualTo(200);
    assertThat(r.header("etag")).contains("\"" + md5Hex(data) + "\"");
    assertThat(s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asByteArray()).isEqualTo(data);
  }

  @Test
  void bodyChangedAfterSigning_is400XAmzContentSHA256Mismatch_andStoresNothing() throws Exception {
    byte[] signed = Content.bytes(4, 1_000_000);
    byte[] sent = signed.clone();
    sent[sent.length / 2] ^= 1;
    // A new key: nothing appears.
    Http.Reply r = S3Support.sendSigned(cluster, "PUT", "/" + BUCKET + "/auth/tampered-new", Map.of(), signed, sent);
    assertThat(r.status()).as(S3Support.brief(r)).isEqualTo(400);
    assertThat(r.bodyText()).contains("<Code>XAmzContentSHA256Mismatch</Code>");
    assertAbsent("auth/tampered-new");

    // An existing key: the old version stays.
    Http.Reply r2 = S3Support.sendSigned(cluster, "PUT", "/" + BUCKET + "/" + KEY, Map.of(), signed, sent);
    assertThat(r2.status()).isEqualTo(400);
    assertThat(r2.bodyText()).contains("<Code>XAmzContentSHA256Mismatch</Code>");
    assertThat(s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(KEY)).asByteArray()).isEqualTo(DATA);

    // The same request with the body that was signed is stored.
    Http.Reply ok = S3Support.sendSigned(cluster, "PUT", "/" + BUCKET + "/auth/untampered", Map.of(), signed, signed);
    assertThat(ok.status()).as(S3Support.brief(ok)).isEqualTo(200);
    assertThat(s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("auth/untampered")).asByteArray()).isEqualTo(signed);
  }

  @Test
  void awsChunkedBody_signedByTheSdkSigner_isStored_andATamperedChunkIs403_storingNothing() throws Exception {
    byte[] data = Content.bytes(5, 300_000); // several 128 KiB chunks
    for (boolean trailer : new boolean[] {false, true}) {
      String key = "auth/chunked-" + trailer;
      S3Support.Prepared p = S3Support.signedChunkedPut(cluster, "/" + BUCKET + "/" + key, data, true, trailer);
      Http.Reply ok = Http.send(Http.NO_FOLLOW, p.request().PUT(HttpRequest.BodyPublishers.ofByteArray(p.body())));
      assertThat(ok.status()).as(S3Support.brief(ok)).isEqualTo(200);
      assertThat(s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asByteArray()).isEqualTo(data);

      String tamperedKey = "auth/chunked-tampered-" + trailer;
      S3Support.Prepared t = S3Support.signedChunkedPut(cluster, "/" + BUCKET + "/" + tamperedKey, data, true, trailer);
      byte[] body = t.body().clone();
      body[firstChunkData(body) + 1000] ^= 1;
      Http.Reply bad = Http.send(Http.NO_FOLLOW, t.request().PUT(HttpRequest.BodyPublishers.ofByteArray(body)));
      assertThat(bad.status()).as(S3Support.brief(bad)).isEqualTo(403);
      assertThat(bad.bodyText()).contains("<Code>SignatureDoesNotMatch</Code>");
      assertAbsent(tamperedKey);
    }
  }

  @Test
  void unsignedChunksWithACrc32Trailer_areStored_andAChangedByteIs400BadDigest_storingNothing() throws Exception {
    byte[] data = Content.bytes(6, 200_000);
    S3Support.Prepared p = S3Support.signedChunkedPut(cluster, "/" + BUCKET + "/auth/trailer-ok", data, false, true);
    assertThat(p.contentSha256()).isEqualTo("STREAMING-UNSIGNED-PAYLOAD-TRAILER");
    Http.Reply ok = Http.send(Http.NO_FOLLOW, p.request().PUT(HttpRequest.BodyPublishers.ofByteArray(p.body())));
    assertThat(ok.status()).as(S3Support.brief(ok)).isEqualTo(200);
    assertThat(s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("auth/trailer-ok")).asByteArray()).isEqualTo(data);

    S3Support.Prepared t = S3Support.signedChunkedPut(cluster, "/" + BUCKET + "/" + KEY, data, false, true);
    byte[] body = t.body().clone();
    body[firstChunkData(body) + 10] ^= 1;
    Http.Reply bad = Http.send(Http.NO_FOLLOW, t.request().PUT(HttpRequest.BodyPublishers.ofByteArray(body)));
    assertThat(bad.status()).as(S3Support.brief(bad)).isEqualTo(400);
    assertThat(bad.bodyText()).contains("<Code>BadDigest</Code>");
    assertThat(s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(KEY)).asByteArray()).as("old version kept").isEqualTo(DATA);
  }

  /** The offset of the first data byte of an aws-chunked body: after the first chunk header line. */
  private static int firstChunkData(byte[] body) {
    for (int i = 0; i + 1 < body.length; i++) {
      if (body[i] == '\r' && body[i + 1] == '\n') {
        return i + 2;
      }
    }
    throw new IllegalStateException("no chunk header");
  }

  @Test
  void requestSignedTwentyMinutesAgo_is403RequestTimeTooSkewed() throws Exception {
    java.time.Clock past = java.time.Clock.offset(java.time.Clock.systemUTC(), Duration.ofMinutes(-20));
    Http.Reply r = Http.send(Http.NO_FOLLOW, S3Support.signed(cluster, cluster.credentials().accessKey(),
        cluster.credentials().secretKey(), "GET", "/" + BUCKET + "/" + KEY, Map.of(), new byte[0], past).GET());
    assertThat(r.status()).isEqualTo(403);
    assertThat(r.bodyText()).contains("<Code>RequestTimeTooSkewed</Code>");
    // Signed now, the same request is served.
    Http.Reply now = Http.send(Http.NO_FOLLOW, S3Support.signed(cluster, cluster.credentials().accessKey(),
        cluster.credentials().secretKey(), "GET", "/" + BUCKET + "/" + KEY, Map.of(), new byte[0]).GET());
    assertThat(now.status()).isEqualTo(200);
    assertThat(now.body()).isEqualTo(DATA);
  }

  @Test
  void amzHeaderAddedAfterSigning_is403_andStoresNothing() throws Exception {
    byte[] body = Content.bytes(7, 1000);
    HttpRequest.Builder b = S3Support.signed(cluster, cluster.credentials().accessKey(),
        cluster.credentials().secretKey(), "PUT", "/" + BUCKET + "/auth/injected-meta", Map.of(), body);
    Http.Reply r = Http.send(Http.NO_FOLLOW, b.header("x-amz-meta-injected", "yes")
        .PUT(HttpRequest.BodyPublishers.ofByteArray(body)));
    assertThat(r.status()).isEqualTo(403);
    assertThat(r.bodyText()).contains("<Code>AccessDenied</Code>");
    assertAbsent("auth/injected-meta");
    // A signed header changed after signing.
    HttpRequest.Builder c = S3Support.signed(cluster, cluster.credentials().accessKey(),
        cluster.credentials().secretKey(), "PUT", "/" + BUCKET + "/auth/changed-type",
        Map.of("Content-Type", "text/plain"), body);
    Http.Reply r2 = Http.send(Http.NO_FOLLOW, c.setHeader("Content-Type", "application/x-evil")
        .PUT(HttpRequest.BodyPublishers.ofByteArray(body)));
    assertThat(r2.status()).isEqualTo(403);
    assertThat(r2.bodyText()).contains("<Code>SignatureDoesNotMatch</Code>");
    assertAbsent("auth/changed-type");
  }
}
