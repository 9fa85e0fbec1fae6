package io.granary.it.protection;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.ClusterJson;
import io.granary.it.cache.RemoteBuckets;
import io.granary.it.support.Content;
import io.granary.it.support.GranaryCli;
import io.granary.it.support.Http;
import io.granary.it.support.Names;
import io.granary.it.support.Resources;
import io.granary.it.support.TestCluster;
import io.granary.testkit.S3ProxyServer;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Bucket protection properties (docs/protection.md) on three targets with two mountpaths each: set at creation and
 * later through the native API (local and S3 buckets) and the CLI, kept in bucket metadata on every node, and an impossible setting
 * refused with a clear 4xx that changes nothing.
 */
class ProtectionPropsIT {
  private static final Duration CLI = Duration.ofSeconds(60);
  private static final String S3_BUCKET = "prot-s3";
  private static Path work;
  private static S3ProxyServer s3proxy;
  private static S3Client backend;
  private static TestCluster cluster;

  @BeforeAll
  static void start() throws Exception {
    work = Files.createTempDirectory("protection");
    s3proxy = S3ProxyServer.start(work.resolve("s3proxy"));
    backend = RemoteBuckets.backendClient(s3proxy);
    backend.createBucket(b -> b.bucket(S3_BUCKET));
    backend.putObject(b -> b.bucket(S3_BUCKET).key("remote-object"), RequestBody.fromBytes(Content.bytes(3, 5000)));
    cluster = TestCluster.start("protection", 3);
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(backend, cluster, s3proxy);
  }

  @Test
  void create_withProtection_recordedAndShown() throws Exception {
    Http.Reply r = admin("POST", "/v1/buckets/prot-create",
        "{\"protection\":{\"mirror.copies\":2,\"checksum.validateWarmGet\":true}}");
    assertThat(r.status()).as(r.bodyText()).isEqualTo(201);
    JsonNode p = protection("prot-create");
    assertThat(p.path("mirror.copies").asInt()).isEqualTo(2);
    assertThat(p.path("checksum.validateWarmGet").asBoolean()).isTrue();
    assertThat(p.path("ec.data").asInt()).isZero();
  }

  @Test
  void create_impossibleProtection_400_noBucket() throws Exception {
    Http.Reply r = admin("POST", "/v1/buckets/prot-nocreate", "{\"protection\":{\"mirror.copies\":3}}");
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.bodyText()).contains("InvalidArgument").contains("mirror.copies=3").contains("has 2");
    assertThat(admin("HEAD", "/v1/buckets/prot-nocreate", null).status()).isEqualTo(404);
  }

  @Test
  void bucketWithoutProtection_oneCopy() throws Exception {
    assertThat(admin("POST", "/v1/buckets/prot-default", null).status()).isEqualTo(201);
    JsonNode p = protection("prot-default");
    assertThat(p.path("mirror.copies").asInt()).isEqualTo(1);
    assertThat(p.path("ec.objSizeLimit").asLong()).isEqualTo(256 * 1024);
  }

  @Test
  void patch_changesProtection_onEveryProxyView() throws Exception {
    assertThat(admin("POST", "/v1/buckets/prot-patch", null).status()).isEqualTo(201);
    Http.Reply r = admin("PATCH", "/v1/buckets/prot-patch",
        "{\"mirror.copies\":\"2\",\"ec.data\":1,\"ec.parity\":1,\"ec.objSizeLimit\":1024}");
    assertThat(r.status()).as(r.bodyText()).isEqualTo(200);
    JsonNode answered = ClusterJson.mapper().readTree(r.bodyText()).path("protection");
    assertThat(protection("prot-patch")).isEqualTo(answered);
    assertThat(answered.path("mirror.copies").asInt()).isEqualTo(2);
    assertThat(answered.path("ec.data").asInt()).isEqualTo(1);
    assertThat(answered.path("ec.parity").asInt()).isEqualTo(1);
    assertThat(answered.path("ec.objSizeLimit").asLong()).isEqualTo(1024);
    // and back: an empty bucket may change D and P
    assertThat(admin("PATCH", "/v1/buckets/prot-patch", "{\"ec.data\":0,\"ec.parity\":0,\"mirror.copies\":1}")
        .status()).isEqualTo(200);
    assertThat(protection("prot-patch").path("ec.data").asInt()).isZero();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "copies above the mountpaths | {\"mirror.copies\":3}          | mirror.copies=3",
      "copies zero                 | {\"mirror.copies\":0}          | mirror.copies must be 1",
      "parity zero                 | {\"ec.data\":1,\"ec.parity\":0} | ec.parity must be at least 1",
      "data zero                   | {\"ec.data\":0,\"ec.parity\":1} | ec.data must be at least 1",
      "D+P above targets - 1       | {\"ec.data\":2,\"ec.parity\":1} | needs at least 4 targets; the cluster has 3",
      "unknown key                 | {\"mirror.copy\":2}            | unknown bucket property 'mirror.copy'",
      "not a number                | {\"mirror.copies\":\"two\"}     | must be a whole number",
      "not a boolean               | {\"checksum.validateWarmGet\":1} | must be true or false",
      "empty                       | {}                            | at least one of",
  })
  void patch_impossibleSetting_400_nothingChanged(String what, String body, String message) throws Exception {
    String bucket = "prot-bad";
    if (admin("HEAD", "/v1/buckets/" + bucket, null).status() == 404) {
      assertThat(admin("POST", "/v1/buckets/" + bucket, "{\"protection\":{\"ec.data\":1,\"ec.parity\":1}}")
          .status()).isEqualTo(201);
    }
    JsonNode before = bucketProps(bucket);
    Http.Reply r = admin("PATCH", "/v1/buckets/" + bucket, body);
    assertThat(r.status()).as(what).isEqualTo(400);
    assertThat(r.bodyText()).as(what).contains(message);
    assertThat(bucketProps(bucket)).isEqualTo(before);
  }

  @Test
  void patch_ecDataOrParityWithObjects_409_nothingChanged() throws Exception {
    String bucket = "prot-fixed";
    assertThat(admin("POST", "/v1/buckets/" + bucket, "{\"protection\":{\"ec.data\":1,\"ec.parity\":1}}").status())
        .isEqualTo(201);
    byte[] data = Content.bytes(7, 10_000);
    assertThat(Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(), bucket, "o")))
        .PUT(HttpRequest.BodyPublishers.ofByteArray(data))).status()).isEqualTo(200);
    JsonNode before = bucketProps(bucket);
    Http.Reply r = admin("PATCH", "/v1/buckets/" + bucket, "{\"ec.data\":0,\"ec.parity\":0}");
    assertThat(r.status()).isEqualTo(409);
    assertThat(r.bodyText()).contains("BucketPropertyFixed").contains("cannot change once the bucket holds objects");
    assertThat(bucketProps(bucket)).isEqualTo(before);
    // what may change with data still does
    assertThat(admin("PATCH", "/v1/buckets/" + bucket, "{\"mirror.copies\":2,\"ec.objSizeLimit\":0}").status())
        .isEqualTo(200);
    assertThat(protection(bucket).path("mirror.copies").asInt()).isEqualTo(2);
  }

  /**
   * An S3 bucket takes the same properties through the native API. For it, "holds objects" means cached ones: slices
   * would be cut of what the cluster stores, not of what only the remote has.
   */
  @Test
  void s3Bucket_propsThroughNativeApi_dpFixedOnceCached() throws Exception {
    Path creds = s3proxy.writeCredentialsFile(work.resolve("credentials"));
    Http.Reply reg = RemoteBuckets.register(cluster, "aws", S3_BUCKET,
        RemoteBuckets.s3Props(s3proxy.endpoint(), creds, "60s", false));
    assertThat(reg.status()).as(reg.bodyText()).isEqualTo(201);
    String path = "/v1/buckets/" + S3_BUCKET + "?provider=aws";
    // the remote holds an object, none is cached: D and P may still change
    Http.Reply r = admin("PATCH", path, "{\"ec.data\":1,\"ec.parity\":1,\"mirror.copies\":2}");
    assertThat(r.status()).as(r.bodyText()).isEqualTo(200);
    assertThat(protection(S3_BUCKET).path("ec.data").asInt()).isEqualTo(1);
    assertThat(RemoteBuckets.get(cluster, "aws", S3_BUCKET, "remote-object", null).status()).isEqualTo(200);
    // the cold GET's copy is committed after its last byte reached the client: wait until it is listed as cached
    Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
        .until(() -> ClusterJson.mapper().readTree(Http.get(cluster.endpoint() + "/v1/buckets/" + S3_BUCKET
            + "?provider=aws&cached=true").body()).path("entries").size(), cached -> cached == 1);
    JsonNode before = bucketProps(S3_BUCKET);
    Http.Reply fixed = admin("PATCH", path, "{\"ec.data\":0,\"ec.parity\":0}");
    assertThat(fixed.status()).as(fixed.bodyText()).isEqualTo(409);
    assertThat(bucketProps(S3_BUCKET)).isEqualTo(before);
    assertThat(admin("PATCH", path, "{\"checksum.validateWarmGet\":true}").status()).isEqualTo(200);
    assertThat(protection(S3_BUCKET).path("checksum.validateWarmGet").asBoolean()).isTrue();
  }

  @Test
  void patch_unknownBucket_404() throws Exception {
    assertThat(admin("PATCH", "/v1/buckets/prot-nosuch", "{\"mirror.copies\":2}").status()).isEqualTo(404);
  }

  @Test
  void cli_propsSetAndShow() throws Exception {
    String ep = cluster.endpoint();
    GranaryCli.Result created = GranaryCli.run(CLI, "bucket", "create", "prot-cli", "--cluster", ep,
        "--prop", "checksum.validateWarmGet=true");
    assertThat(created.exit()).as(created.all()).isZero();
    GranaryCli.Result set = GranaryCli.run(CLI, "bucket", "props", "set", "prot-cli", "mirror.copies=2",
        "--cluster", ep);
    assertThat(set.exit()).as(set.all()).isZero();
    assertThat(set.stdout()).containsPattern("mirror.copies\\s+2").containsPattern("checksum.validateWarmGet\\s+true");
    GranaryCli.Result shown = GranaryCli.run(CLI, "bucket", "props", "show", "prot-cli", "--cluster", ep);
    assertThat(shown.stdout()).containsPattern("mirror.copies\\s+2");
    GranaryCli.Result bad = GranaryCli.run(CLI, "bucket", "props", "set", "prot-cli", "mirror.copies=5",
        "--cluster", ep);
    assertThat(bad.exit()).isNotZero();
    assertThat(bad.all()).contains("mirror.copies=5");
    assertThat(protection("prot-cli").path("mirror.copies").asInt()).isEqualTo(2);
  }

  private static JsonNode protection(String bucket) throws Exception {
    return bucketProps(bucket).path("protection");
  }

  private static JsonNode bucketProps(String bucket) throws Exception {
    JsonNode all = ClusterJson.mapper().readTree(Http.get(cluster.endpoint() + "/v1/buckets").body());
    for (JsonNode b : all.path("buckets")) {
      if (b.path("bucket").path("name").asText().equals(bucket)) {
        return b;
      }
    }
    throw new AssertionError("no bucket " + bucket + " in " + all);
  }

  private static Http.Reply admin(String method, String path, String body) throws Exception {
    return Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(cluster.endpoint() + path))
        .header("Content-Type", "application/json")
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body)));
  }
}
