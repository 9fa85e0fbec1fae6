package io.granary.it.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.hrw.PlacementKey;
import io.granary.it.support.Content;
import io.granary.it.support.Http;
import io.granary.it.support.Resources;
import io.granary.it.support.TestCluster;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/**
 * S3 reads sent by a stock SDK straight to the target that owns the key (endpoint {@code http://TARGET/s3}, path
 * style, the proxy's keys): the same bytes, ETag and metadata as through the proxy; another target's key answers 307
 * to its owner; writes, sub-resources, unsigned and badly signed requests are refused there and change nothing.
 */
class DirectS3ReadsIT {
  private static final String BUCKET = "direct";
  private static final int OBJECTS = 40;
  private static TestCluster cluster;
  private static S3Client proxy;
  private static final Map<String, S3Client> targets = new HashMap<>();
  private static ClusterMap map;

  @BeforeAll
  static void start() throws Exception {
    cluster = TestCluster.start("s3direct", 3);
    proxy = S3Support.sync(cluster);
    proxy.createBucket(b -> b.bucket(BUCKET));
    for (int i = 0; i < OBJECTS; i++) {
      int n = i;
      proxy.putObject(b -> b.bucket(BUCKET).key(key(n)).contentType("application/x-test")
          .metadata(Map.of("index", String.valueOf(n))), RequestBody.fromBytes(bytes(n)));
    }
    for (String id : cluster.local().targetIds()) {
      targets.put(id, S3Support.sync(direct(id), S3Support.credentials(cluster)));
    }
    map = cluster.map();
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(targets.values().toArray(AutoCloseable[]::new));
    Resources.closeAll(proxy, cluster);
  }

  private static String key(int i) {
    return "train/sample-" + i + (i % 7 == 0 ? " with spaces+plus" : "") + ".bin";
  }

  private static byte[] bytes(int i) {
    return Content.bytes(4000 + i, i == 0 ? 0 : i % 5 == 0 ? 300_000 + i : 1 + i * 977);
  }

  private static String direct(String target) {
    return cluster.local().targetUrl(target) + "/s3";
  }

  private static String owner(String key) {
    return map.placement().owner(PlacementKey.digest(Bucket.local(BUCKET), key)).orElseThrow().id();
  }

  private static String other(String key) {
    return cluster.local().targetIds().stream().filter(t -> !t.equals(owner(key))).findFirst().orElseThrow();
  }

  @Test
  void everyObject_readFromItsOwner_isWhatTheProxyServes_bytesEtagAndMetadata() {
    for (int i = 0; i < OBJECTS; i++) {
      String k = key(i);
      S3Client own = targets.get(owner(k));
      ResponseBytes<GetObjectResponse> got = own.getObjectAsBytes(b -> b.bucket(BUCKET).key(k));
      assertThat(got.asByteArray()).as(k).isEqualTo(bytes(i));
      HeadObjectResponse viaProxy = proxy.headObject(b -> b.bucket(BUCKET).key(k));
      assertThat(got.response().eTag()).isEqualTo(viaProxy.eTag());
      assertThat(got.response().contentType()).isEqualTo("application/x-test");
      assertThat(got.response().metadata()).containsEntry("index", String.valueOf(i));
      HeadObjectResponse head = own.headObject(b -> b.bucket(BUCKET).key(k));
      assertThat(head.contentLength()).isEqualTo(bytes(i).length);
    }
    String k = key(5); // 300 KiB: a range from its owner
    byte[] part = targets.get(owner(k)).getObjectAsBytes(b -> b.bucket(BUCKET).key(k).range("bytes=1000-1999"))
        .asByteArray();
    assertThat(part).isEqualTo(java.util.Arrays.copyOfRange(bytes(5), 1000, 2000));
  }

  @Test
  void aPresignedUrlForTheOwner_readsTheObject_andAnotherTargetsKeyIsRedirectedToItsOwner() throws Exception {
    String k = key(3);
    Http.Reply got = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(presign(owner(k), k)).GET());
    assertThat(got.status()).as(got.bodyText()).isEqualTo(200);
    assertThat(got.body()).isEqualTo(bytes(3));

    URI elsewhere = presign(other(k), k);
    Http.Reply moved = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(elsewhere).GET());
    assertThat(moved.status()).isEqualTo(307);
    assertThat(moved.header("Location")).hasValue(cluster.local().targetUrl(owner(k)) + elsewhere.getRawPath() + "?"
        + elsewhere.getRawQuery());
  }

  @Test
  void writesAndSubResources_areRefusedAtATarget_andChangeNothing() {
    String k = key(4);
    S3Client own = targets.get(owner(k));
    assertStatus(() -> own.putObject(b -> b.bucket(BUCKET).key(k), RequestBody.fromString("replaced")), 405,
        "MethodNotAllowed");
    assertStatus(() -> own.putObject(b -> b.bucket(BUCKET).key("new-key"), RequestBody.fromString("new")), 405,
        "MethodNotAllowed");
    assertStatus(() -> own.deleteObject(b -> b.bucket(BUCKET).key(k)), 405, "MethodNotAllowed");
    assertStatus(() -> own.getObjectAcl(b -> b.bucket(BUCKET).key(k)), 405, "MethodNotAllowed");
    assertStatus(() -> own.listObjectsV2(b -> b.bucket(BUCKET)), 405, "MethodNotAllowed");

    assertThat(proxy.getObjectAsBytes(b -> b.bucket(BUCKET).key(k)).asByteArray()).isEqualTo(bytes(4));
    assertStatus(() -> proxy.headObject(b -> b.bucket(BUCKET).key("new-key")), 404, null);
  }

  @Test
  void unsignedWronglySigned_orMissing_getTheS3ErrorsTheProxyGives() throws Exception {
    String k = key(6);
    String url = direct(owner(k)) + "/" + BUCKET + "/" + k.replace(" ", "%20").replace("+", "%2B");
    Http.Reply unsigned = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(url)).GET());
    assertThat(unsigned.status()).isEqualTo(403);
    assertThat(unsigned.bodyText()).contains("<Code>AccessDenied</Code>");

    try (S3Client wrong = S3Support.sync(direct(owner(k)),
        S3Support.credentials(cluster.credentials().accessKey(), "not-the-secret"))) {
      assertStatus(() -> wrong.getObject(b -> b.bucket(BUCKET).key(k)), 403, "SignatureDoesNotMatch");
    }
    S3Client own = targets.get(owner("no-such-key"));
    assertStatus(() -> own.getObject(b -> b.bucket(BUCKET).key("no-such-key")), 404, "NoSuchKey");
    assertStatus(() -> own.getObject(b -> b.bucket("no-such-bucket").key("k")), 404, "NoSuchBucket");
  }

  private static URI presign(String target, String key) {
    try (S3Presigner p = S3Presigner.builder().endpointOverride(URI.create(direct(target))).region(S3Support.REGION)
        .credentialsProvider(S3Support.credentials(cluster))
        .serviceConfiguration(software.amazon.awssdk.services.s3.S3Configuration.builder().pathStyleAccessEnabled(true)
            .build()).build()) {
      return URI.create(p.presignGetObject(b -> b.signatureDuration(Duration.ofMinutes(5))
          .getObjectRequest(g -> g.bucket(BUCKET).key(key))).url().toString());
    }
  }

  private static void assertStatus(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, int status,
      String code) {
    assertThatThrownBy(call).isInstanceOfSatisfying(S3Exception.class, e -> {
      assertThat(e.statusCode()).as(e.getMessage()).isEqualTo(status);
      if (code != null) {
        assertThat(e.awsErrorDetails().errorCode()).isEqualTo(code);
      }
    });
  }
}
