package io.granary.it.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.it.support.Content;
import io.granary.it.support.Http;
import io.granary.it.support.TestCluster;
import io.granary.it.support.Resources;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;
import software.amazon.awssdk.services.s3.presigner.model.PresignedGetObjectRequest;

/**
 * The opt-in redirect mode ({@code --s3-redirect}): S3 object GET and HEAD are answered with a 307 to the owning
 * target, whose URL carries a cluster signature so the target serves it without the client's key; clients that
 * follow redirects get the bytes from the target directly. Writes still stream through the proxy.
 */
class S3RedirectIT {
  private static final String BUCKET = "s3redirect";
  private static final String KEY = "redirect/objekt ünï+1.bin";
  private static final byte[] DATA = Content.bytes(1, 700_000);
  private static TestCluster cluster;
  private static S3Client s3;
  private static S3Presigner presigner;

  @BeforeAll
  static void start() throws Exception {
    cluster = TestCluster.start("s3redirect", 2, List.of(), List.of("--s3-redirect"));
    s3 = S3Support.sync(cluster);
    presigner = S3Support.presigner(cluster);
    s3.createBucket(b -> b.bucket(BUCKET));
    s3.putObject(b -> b.bucket(BUCKET).key(KEY), RequestBody.fromBytes(DATA));
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(presigner, s3, cluster);
  }

  private static String rawPath(String key) {
    return "/" + BUCKET + "/" + URLEncoder.encode(key, StandardCharsets.UTF_8).replace("+", "%20").replace("%2F", "/");
  }

  @Test
  void headerSignedGet_is307ToTheOwner_withAClusterSignature_andTheLocationServesTheBytes() throws Exception {
    Http.Reply r = S3Support.sendSigned(cluster, "GET", rawPath(KEY), Map.of(), new byte[0], null);
    assertThat(r.status()).as(S3Support.brief(r)).isEqualTo(307);
    String location = r.header("location").orElseThrow();
    String owner = cluster.owner(BUCKET, KEY).url();
    assertThat(location).startsWith(owner + "/s3/" + BUCKET + "/").contains("granary-signature=")
        .contains("granary-expires=");

    // The Location alone, without the client's key, serves the object, whole or in part.
    Http.Reply got = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(location)).GET());
    assertThat(got.status()).isEqualTo(200);
    assertThat(got.body()).isEqualTo(DATA);
    assertThat(got.header("etag")).contains("\"" + S3Support.md5Hex(DATA) + "\"");
    Http.Reply part = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(location))
        .header("Range", "bytes=100-199").GET());
    assertThat(part.status()).isEqualTo(206);
    assertThat(part.body()).isEqualTo(Arrays.copyOfRange(DATA, 100, 200));

    // A client that follows redirects gets the bytes in one call.
    Http.Reply followed = Http.send(Http.FOLLOW, S3Support.signed(cluster, cluster.credentials().accessKey(),
        cluster.credentials().secretKey(), "GET", rawPath(KEY), Map.of(), new byte[0]).GET());
    assertThat(followed.status()).isEqualTo(200);
    assertThat(followed.body()).isEqualTo(DATA);
  }

  @Test
  void headerSignedHead_is307_andTheLocationAnswersTheHead() throws Exception {
    Http.Reply r = Http.send(Http.NO_FOLLOW, S3Support.signed(cluster, cluster.credentials().accessKey(),
        cluster.credentials().secretKey(), "HEAD", rawPath(KEY), Map.of(), new byte[0])
        .method("HEAD", HttpRequest.BodyPublishers.noBody()));
    assertThat(r.status()).isEqualTo(307);
    String location = r.header("location").orElseThrow();
    Http.Reply head = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(location))
        .method("HEAD", HttpRequest.BodyPublishers.noBody()));
    assertThat(head.status()).isEqualTo(200);
    assertThat(head.header("content-length")).contains(String.valueOf(DATA.length));
  }

  @Test
  void redirectLocation_isBoundToItsMethodAndKey() throws Exception {
    Http.Reply r = S3Support.sendSigned(cluster, "GET", rawPath(KEY), Map.of(), new byte[0], null);
    String location = r.header("location").orElseThrow();
    // Used for a DELETE: refused, the object stays.
    Http.Reply delete = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(location)).DELETE());
    assertThat(delete.status()).isEqualTo(403);
    // Pointed at another key: refused.
    String other = location.replace("/redirect/", "/elsewhere/");
    assertThat(Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(other)).GET()).status()).isEqualTo(403);
    // Without its signature: refused.
    String unsigned = location.substring(0, location.indexOf('?'));
    assertThat(Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(unsigned)).GET()).status()).isEqualTo(403);
    // The object is still there.
    assertThat(Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(location)).GET()).body()).isEqualTo(DATA);
  }

  @Test
  void unsignedGet_isStill403_notRedirected() throws Exception {
    Http.Reply r = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(cluster.endpoint() + rawPath(KEY))).GET());
    assertThat(r.status()).isEqualTo(403);
    assertThat(r.header("location")).isEmpty();
    assertThat(r.bodyText()).contains("<Code>AccessDenied</Code>");
  }

  @Test
  void writesListingAndDeletes_stillStreamThroughTheProxy() {
    String key = "redirect/written";
    byte[] data = Content.bytes(2, 3_000_000);
    s3.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromBytes(data));
    assertThat(s3.listObjectsV2(b -> b.bucket(BUCKET).prefix("redirect/")).contents()).extracting(o -> o.key())
        .contains(key, KEY);
    s3.deleteObject(b -> b.bucket(BUCKET).key(key));
    assertThat(s3.listObjectsV2(b -> b.bucket(BUCKET).prefix("redirect/written")).contents()).isEmpty();
  }

  @Test
  void presignedGet_followedByAPlainHttpClient_getsTheBytes() throws Exception {
    PresignedGetObjectRequest p = presigner.presignGetObject(r -> r.signatureDuration(Duration.ofMinutes(5))
        .getObjectRequest(g -> g.bucket(BUCKET).key(KEY)));
    Http.Reply r = Http.send(Http.FOLLOW, HttpRequest.newBuilder(p.url().toURI()).GET());
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.body()).isEqualTo(DATA);
  }

  @Test
  void presignedGet_is307ToTheOwner_withAClusterSignature() throws Exception {
    PresignedGetObjectRequest p = presigner.presignGetObject(r -> r.signatureDuration(Duration.ofMinutes(5))
        .getObjectRequest(g -> g.bucket(BUCKET).key(KEY)));
    Http.Reply r = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(p.url().toURI()).GET());
    assertThat(r.status()).as("a 307, not the object streamed through (%d bytes)", r.length()).isEqualTo(307);
    String location = r.header("location").orElseThrow();
    assertThat(location).startsWith(cluster.owner(BUCKET, KEY).url() + "/s3/" + BUCKET + "/")
        .contains("granary-signature=");
    assertThat(location).doesNotContain("X-Amz-Signature");
    Http.Reply got = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(location)).GET());
    assertThat(got.status()).isEqualTo(200);
    assertThat(got.body()).isEqualTo(DATA);
  }
}
