package io.granary.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.ClusterJson;
import io.granary.it.support.Content;
import io.granary.it.support.GranaryCli;
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

/**
 * The native API of a proxy that requires authentication (as a deployed one does): the same SigV4 keys as S3;
 * unsigned or wrongly signed requests are refused; health and the cluster map stay open; a signed request's 307
 * carries a cluster-signed URL the target honours.
 */
class NativeAuthIT {
  private static TestCluster cluster;
  private static String ak;
  private static String sk;

  @BeforeAll
  static void start() throws Exception {
    cluster = TestCluster.start("native-auth", 2, List.of(), List.of(), true);
    ak = cluster.credentials().accessKey();
    sk = cluster.credentials().secretKey();
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(cluster);
  }

  private static Http.Reply signed(String method, String path, byte[] body, String secret) throws Exception {
    String url = cluster.endpoint() + path;
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url))
        .method(method, body.length == 0 ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
    return Http.send(Http.NO_FOLLOW, SigV4.sign(b, method, url, body, ak, secret));
  }

  private static String code(Http.Reply r) throws Exception {
    return ClusterJson.mapper().readTree(r.body()).path("code").asText();
  }

  @Test
  void theCli_signsWithTheS3Keys_fromFlagsOrEnvironment_andWithoutThemGetsOneLine403() throws Exception {
    Duration t = Duration.ofSeconds(60);
    String ep = cluster.endpoint();
    Map<String, String> none = new java.util.HashMap<>();
    for (String v : List.of("GRANARY_ACCESS_KEY", "GRANARY_SECRET_KEY", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")) {
      none.put(v, "");
    }
    GranaryCli.Result created = GranaryCli.run(t, none, "bucket", "create", "cli-signed", "--cluster", ep,
        "--access-key", ak, "--secret-key", sk);
    assertThat(created.exit()).as(created.all()).isZero();
    GranaryCli.Result listed = GranaryCli.run(t, Map.of("GRANARY_ACCESS_KEY", ak, "GRANARY_SECRET_KEY", sk,
        "AWS_ACCESS_KEY_ID", "", "AWS_SECRET_ACCESS_KEY", ""), "bucket", "ls", "--cluster", ep);
    assertThat(listed.exit()).as(listed.all()).isZero();
    assertThat(listed.stdout()).contains("cli-signed");
    GranaryCli.Result jobs = GranaryCli.run(t, Map.of("AWS_ACCESS_KEY_ID", ak, "AWS_SECRET_ACCESS_KEY", sk,
        "GRANARY_ACCESS_KEY", "", "GRANARY_SECRET_KEY", ""), "job", "show", "--endpoint", ep);
    assertThat(jobs.exit()).as(jobs.all()).isZero();

    GranaryCli.Result unsigned = GranaryCli.run(t, none, "bucket", "ls", "--cluster", ep);
    assertThat(unsigned.exit()).isNotZero();
    assertThat(unsigned.stderr()).contains("403").contains("AccessDenied");
    assertThat(unsigned.stderr().strip().lines()).as(unsigned.stderr()).hasSize(1);
    GranaryCli.Result wrong = GranaryCli.run(t, none, "bucket", "ls", "--cluster", ep, "--access-key", ak,
        "--secret-key", "wrong" + sk);
    assertThat(wrong.stderr()).contains("403").contains("SignatureDoesNotMatch");
    GranaryCli.Result half = GranaryCli.run(t, none, "bucket", "ls", "--cluster", ep, "--access-key", ak);
    assertThat(half.exit()).isNotZero();
    assertThat(half.stderr()).contains("--secret-key");
  }

  @Test
  void unsignedRequests_are403AccessDenied_butHealthAndMapStayOpen() throws Exception {
    Http.Reply create = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(cluster.endpoint() + "/v1/buckets/open"))
        .POST(HttpRequest.BodyPublishers.noBody()));
    assertThat(create.status()).isEqualTo(403);
    assertThat(code(create)).isEqualTo("AccessDenied");
    assertThat(Http.get(cluster.endpoint() + "/v1/buckets").status()).isEqualTo(403);
    assertThat(Http.get(cluster.endpoint() + "/v1/health").status()).isEqualTo(200);
    assertThat(Http.get(cluster.endpoint() + "/v1/cluster/map").status()).isEqualTo(200);
  }

  @Test
  void wrongSecret_is403SignatureDoesNotMatch() throws Exception {
    Http.Reply r = signed("POST", "/v1/buckets/wrongkey", new byte[0], sk + "x");
    assertThat(r.status()).isEqualTo(403);
    assertThat(code(r)).isEqualTo("SignatureDoesNotMatch");
    assertThat(signed("GET", "/v1/buckets", new byte[0], sk).bodyText()).doesNotContain("wrongkey");
  }

  @Test
  void signedRequests_createPutGetAndList_withTheS3Keys() throws Exception {
    assertThat(signed("POST", "/v1/buckets/secure", new byte[0], sk).status()).isEqualTo(201);
    byte[] data = Content.bytes(5, 300_000);

    // PUT: the signed request gets a 307 (before any body with Expect: 100-continue) to a cluster-signed URL.
    String url = cluster.endpoint() + "/v1/objects/secure/dir/o";
    Http.Reply redirect = Http.send(Http.NO_FOLLOW, SigV4.sign(HttpRequest.newBuilder(URI.create(url)).expectContinue(true)
        .PUT(HttpRequest.BodyPublishers.ofByteArray(data)), "PUT", url, data, ak, sk));
    assertThat(redirect.status()).isEqualTo(307);
    String location = redirect.header("location").orElseThrow();
    assertThat(location).contains("granary-signature=");
    Http.Reply put = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(location))
        .PUT(HttpRequest.BodyPublishers.ofByteArray(data)));
    assertThat(put.status()).isEqualTo(200);

    Http.Reply get = signed("GET", "/v1/objects/secure/dir/o", new byte[0], sk);
    assertThat(get.status()).isEqualTo(307);
    Http.Reply body = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(get.header("location").orElseThrow())).GET());
    assertThat(body.body()).isEqualTo(data);

    // The redirect URL is bound to its method: it cannot be replayed to overwrite the object.
    Http.Reply replay = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(get.header("location").orElseThrow()))
        .PUT(HttpRequest.BodyPublishers.ofString("evil")));
    assertThat(replay.status()).isEqualTo(403);

    JsonNode page = ClusterJson.mapper().readTree(signed("GET", "/v1/buckets/secure?prefix=dir/", new byte[0], sk).body());
    assertThat(page.path("entries").get(0).path("name").asText()).isEqualTo("dir/o");
    assertThat(signed("DELETE", "/v1/buckets/secure?force=true", new byte[0], sk).status()).isEqualTo(204);
  }
}
