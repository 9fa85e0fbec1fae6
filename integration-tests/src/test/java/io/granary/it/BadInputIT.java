package io.granary.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.ClusterJson;
import io.granary.it.support.Content;
import io.granary.it.support.Http;
import io.granary.it.support.Names;
import io.granary.it.support.RawHttp;
import io.granary.it.support.TestCluster;
import io.granary.it.support.Resources;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Bad input gets a clear 4xx with a JSON error and changes nothing: after every test the bucket holds exactly
 * the objects it held before, with the same content, and no work file is left behind.
 */
class BadInputIT {
  private static final String BUCKET = "badinput";
  private static final String KEEP = "keep/this object";
  private static final byte[] KEEP_DATA = Content.bytes(42, 100_000);
  private static TestCluster cluster;

  @BeforeAll
  static void start() throws Exception {
    cluster = TestCluster.start("badinput", 2);
    assertThat(admin("POST", "/v1/buckets/" + BUCKET, null).status()).isEqualTo(201);
    assertThat(put(cluster.endpoint(), KEEP, KEEP_DATA).status()).isEqualTo(200);
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(cluster);
  }

  /** Nothing changed: the one object is intact, nothing else exists, no work files linger. */
  @AfterEach
  void nothingChanged() throws Exception {
    JsonNode page = ClusterJson.mapper().readTree(Http.get(cluster.endpoint() + "/v1/buckets/" + BUCKET).body());
    assertThat(page.path("entries").size()).isEqualTo(1);
    assertThat(page.path("entries").get(0).path("name").asText()).isEqualTo(KEEP);
    Http.Reply r = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(), BUCKET, KEEP))).GET());
    assertThat(r.body()).isEqualTo(KEEP_DATA);
    JsonNode buckets = ClusterJson.mapper().readTree(Http.get(cluster.endpoint() + "/v1/buckets").body());
    assertThat(buckets.path("buckets").size()).isEqualTo(1);
    org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(5)).untilAsserted(() ->
        assertThat(workFiles()).isEmpty());
  }

  private static List<Path> workFiles() throws Exception {
    List<Path> all = new ArrayList<>();
    for (String t : cluster.targetIds()) {
      for (Path mp : cluster.mountpaths(t)) {
        try (Stream<Path> s = Files.list(mp.resolve("work"))) {
          all.addAll(s.toList());
        }
      }
    }
    return all;
  }

  private static Http.Reply put(String base, String name, byte[] data) throws Exception {
    return Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(Names.url(base, BUCKET, name)))
        .PUT(HttpRequest.BodyPublishers.ofByteArray(data)));
  }

  private static Http.Reply admin(String method, String path, String body) throws Exception {
    return Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(cluster.endpoint() + path))
        .header("Content-Type", "application/json")
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body)));
  }

  private static Http.Reply signedAdmin(String method, String path, String body) throws Exception {
    return Http.send(Http.NO_FOLLOW, cluster.signed(HttpRequest.newBuilder(URI.create(cluster.endpoint() + path))
        .header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(body))));
  }

  private static String code(String json) throws Exception {
    return ClusterJson.mapper().readTree(json).path("code").asText();
  }

  private static String keepOwnerUrl() throws Exception {
    return cluster.owner(BUCKET, KEEP).url();
  }

  @ParameterizedTest
  @ValueSource(strings = {"/v1/objects/badinput/../etc/passwd", "/v1/objects/badinput/%2e%2e/x",
      "/v1/objects/badinput/%2E%2E%2Fkeep", "/v1/objects/badinput/a/../../b", "/v1/objects/badinput//etc/passwd",
      "/v1/objects/badinput/%2Fetc%2Fpasswd", "/v1/objects/badinput/a/./b", "/v1/objects/badinput/.",
      "/v1/objects/badinput/x%00y", "/v1/objects/badinput/"})
  void traversalAndEmptyNames_are400_onProxyAndTarget(String path) throws Exception {
    for (String base : List.of(cluster.endpoint(), keepOwnerUrl())) {
      for (String method : List.of("GET", "PUT", "DELETE")) {
        String head = method + " " + path + " HTTP/1.1" + (method.equals("PUT") ? "\r\nContent-Length: 5" : "")
            + (base.equals(cluster.endpoint()) ? "" : cluster.signatureLines(method, path));
        RawHttp.Response r = RawHttp.exchange(base, head, method.equals("PUT") ? "hello".getBytes() : null, false);
        assertThat(r.status()).as("%s %s on %s", method, path, base).isEqualTo(400);
        assertThat(code(r.body())).isIn("InvalidObjectName", "InvalidURI");
      }
    }
  }

  @Test
  void malformedEscapesAndInvalidUtf8_are400() throws Exception {
    for (String path : List.of("/v1/objects/badinput/bad%zzescape", "/v1/objects/badinput/bad%ff%fe", "/v1/objects/badinput/x%4")) {
      RawHttp.Response r = RawHttp.exchange(cluster.endpoint(), "GET " + path + " HTTP/1.1", null, false);
      assertThat(r.status()).as(path).isEqualTo(400);
      assertThat(code(r.body())).isEqualTo("InvalidURI");
    }
  }

  @Test
  void overLongNames_are4xx() throws Exception {
    Http.Reply r = put(cluster.endpoint(), "x".repeat(1025), new byte[10]);
    assertThat(r.status()).isEqualTo(400);
    assertThat(code(r.bodyText())).isEqualTo("InvalidObjectName");
    assertThat(r.bodyText()).contains("1024 bytes");
    RawHttp.Response huge = RawHttp.exchange(cluster.endpoint(), "GET /v1/objects/badinput/" + "y".repeat(40_000)
        + " HTTP/1.1", null, false);
    assertThat(huge.status()).isBetween(400, 431);
    assertThat(put(cluster.endpoint(), "x".repeat(1024), new byte[0]).status()).as("1024 bytes is allowed").isEqualTo(200);
    assertThat(Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(), BUCKET, "x".repeat(1024))))
        .DELETE()).status()).isEqualTo(204);
  }

  @Test
  void unknownBucket_is404_onProxyAndTarget() throws Exception {
    for (String base : List.of(cluster.endpoint(), keepOwnerUrl())) {
      Http.Reply get = Http.send(Http.NO_FOLLOW, cluster.signed(
          HttpRequest.newBuilder(URI.create(base + "/v1/objects/nosuchbucket/x")).GET()));
      assertThat(get.status()).isEqualTo(404);
      assertThat(code(get.bodyText())).isEqualTo("BucketNotFound");
      Http.Reply put = Http.send(Http.NO_FOLLOW, cluster.signed(
          HttpRequest.newBuilder(URI.create(base + "/v1/objects/nosuchbucket/x")).PUT(HttpRequest.BodyPublishers.ofString("data"))));
      assertThat(put.status()).isEqualTo(404);
      assertThat(cluster.getSigned(base + "/v1/buckets/nosuchbucket").status()).isEqualTo(404);
    }
    assertThat(admin("DELETE", "/v1/buckets/nosuchbucket", null).status()).isEqualTo(404);
    assertThat(admin("POST", "/v1/buckets/Invalid_UPPER", null).status()).isEqualTo(400);
    assertThat(code(admin("POST", "/v1/buckets/ab", null).bodyText())).isEqualTo("InvalidBucketName");
  }

  @Test
  void missingObject_is404_notAnError() throws Exception {
    Http.Reply r = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(), BUCKET, "absent"))).GET());
    assertThat(r.status()).isEqualTo(404);
    assertThat(code(r.bodyText())).isEqualTo("ObjectNotFound");
    assertThat(Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(), BUCKET, "absent")))
        .DELETE()).status()).isEqualTo(404);
  }

  @Test
  void ranges_singleIs206_invalidIs400_multipleAndUnsatisfiableAre416() throws Exception {
    String url = Names.url(cluster.endpoint(), BUCKET, KEEP);
    Http.Reply ok = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(url)).header("Range", "bytes=100-199").GET());
    assertThat(ok.status()).isEqualTo(206);
    assertThat(ok.header("content-range")).contains("bytes 100-199/100000");
    assertThat(ok.body()).isEqualTo(java.util.Arrays.copyOfRange(KEEP_DATA, 100, 200));
    Http.Reply suffix = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(url)).header("Range", "bytes=-10").GET());
    assertThat(suffix.body()).isEqualTo(java.util.Arrays.copyOfRange(KEEP_DATA, 99_990, 100_000));

    for (String bad : List.of("bytes=abc", "items=0-5", "bytes=9-3", "bytes=")) {
      Http.Reply r = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(url)).header("Range", bad).GET());
      assertThat(r.status()).as(bad).isEqualTo(400);
      assertThat(code(r.bodyText())).isEqualTo("InvalidRange");
    }
    for (String unsat : List.of("bytes=0-1,5-6", "bytes=100000-", "bytes=200000-300000")) {
      Http.Reply r = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(url)).header("Range", unsat).GET());
      assertThat(r.status()).as(unsat).isEqualTo(416);
      assertThat(code(r.bodyText())).isEqualTo("InvalidRange");
    }
    Http.Reply past = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(url)).header("Range", "bytes=100000-").GET());
    assertThat(past.header("content-range")).contains("bytes */100000");
  }

  @Test
  void checksumMismatch_is400_andStoresNothing_andKeepsTheOldVersion() throws Exception {
    byte[] data = Content.bytes(1, 50_000);
    for (String name : List.of("new-object", KEEP)) {
      Http.Reply md5 = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(), BUCKET, name)))
          .header("Content-MD5", Base64.getEncoder().encodeToString(new byte[16]))
          .PUT(HttpRequest.BodyPublishers.ofByteArray(data)));
      assertThat(md5.status()).isEqualTo(400);
      assertThat(code(md5.bodyText())).isEqualTo("BadDigest");
      Http.Reply granary = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(), BUCKET, name)))
          .header("Granary-Checksum-Type", "sha256").header("Granary-Checksum-Value", "00".repeat(32))
          .PUT(HttpRequest.BodyPublishers.ofByteArray(data)));
      assertThat(granary.status()).isEqualTo(400);
      assertThat(code(granary.bodyText())).isEqualTo("BadDigest");
    }
    for (String[] h : List.of(new String[] {"Content-MD5", "not base64!"}, new String[] {"Granary-Checksum-Type", "crc64"},
        new String[] {"Granary-Checksum-Value", "abcd"})) {
      Http.Reply r = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(), BUCKET, "other")))
          .header(h[0], h[1]).PUT(HttpRequest.BodyPublishers.ofByteArray(data)));
      assertThat(r.status()).as(h[0]).isEqualTo(400);
    }
    // A matching checksum is accepted.
    String md5 = Base64.getEncoder().encodeToString(java.security.MessageDigest.getInstance("MD5").digest(data));
    Http.Reply good = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(), BUCKET, "verified")))
        .header("Content-MD5", md5).PUT(HttpRequest.BodyPublishers.ofByteArray(data)));
    assertThat(good.status()).isEqualTo(200);
    assertThat(Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(), BUCKET, "verified")))
        .DELETE()).status()).isEqualTo(204);
  }

  @Test
  void truncatedBody_is400IncompleteBody_andStoresNothing() throws Exception {
    String target = cluster.owner(BUCKET, "truncated").url();
    RawHttp.Response r = RawHttp.exchange(target, "PUT /v1/objects/badinput/truncated HTTP/1.1\r\nContent-Length: 1000000"
        + cluster.signatureLines("PUT", "/v1/objects/badinput/truncated"), Content.bytes(5, 4000), true);
    assertThat(r.status()).isEqualTo(400);
    assertThat(code(r.body())).isEqualTo("IncompleteBody");
    assertThat(r.body()).contains("4000 of 1000000");
    // The same over an existing object leaves the old content.
    String keepTarget = keepOwnerUrl();
    RawHttp.Response r2 = RawHttp.exchange(keepTarget, "PUT /v1/objects/badinput/keep/this%20object HTTP/1.1\r\n"
        + "Content-Length: 500000" + cluster.signatureLines("PUT", "/v1/objects/badinput/keep/this%20object"),
        Content.bytes(6, 1000), true);
    assertThat(r2.status()).isEqualTo(400);
    // A client that disappears mid-body (no half-close) leaves nothing either.
    try (java.net.Socket s = new java.net.Socket("127.0.0.1", URI.create(target).getPort())) {
      s.getOutputStream().write(("PUT /v1/objects/badinput/vanished HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000"
          + cluster.signatureLines("PUT", "/v1/objects/badinput/vanished") + "\r\n\r\n").getBytes());
      s.getOutputStream().write(Content.bytes(7, 10_000));
      s.getOutputStream().flush();
    }
    // Chunked body without its final chunk.
    RawHttp.Response chunked = RawHttp.exchange(target, "PUT /v1/objects/badinput/chunked HTTP/1.1\r\n"
        + "Transfer-Encoding: chunked" + cluster.signatureLines("PUT", "/v1/objects/badinput/chunked"),
        "5\r\nhello\r\n".getBytes(), true);
    assertThat(chunked.status()).isEqualTo(400);
  }

  @Test
  void malformedAdminBodies_are400_andChangeNothing() throws Exception {
    Http.Reply notJson = admin("POST", "/v1/buckets/newbucket", "{not json");
    assertThat(notJson.status()).isEqualTo(400);
    assertThat(code(notJson.bodyText())).isEqualTo("MalformedJSON");
    assertThat(admin("POST", "/v1/buckets/newbucket", "[1,2]").status()).isEqualTo(400);
    assertThat(admin("POST", "/v1/buckets/newbucket", "{\"checksum\":\"crc64\"}").status()).isEqualTo(400);
    assertThat(admin("POST", "/v1/buckets/newbucket", "{\"checksun\":\"md5\"}").status()).isEqualTo(400);
    assertThat(admin("POST", "/v1/buckets/newbucket", "{\"checksum\":5}").status()).isEqualTo(400);
    assertThat(admin("POST", "/v1/buckets/newbucket", "{} trailing").status()).isEqualTo(400);
    assertThat(admin("PUT", "/v1/cluster/nodes/t1", "maintenance").status()).isEqualTo(400);
    assertThat(admin("PUT", "/v1/cluster/nodes/t1", "{\"state\":\"sleeping\"}").status()).isEqualTo(400);
    assertThat(admin("PUT", "/v1/cluster/nodes/nosuch", "{\"state\":\"maintenance\"}").status()).isEqualTo(404);
    assertThat(admin("POST", "/v1/cluster/join", "{\"id\":\"t9\",\"role\":\"target\",\"url\":\"http://x\"}").status())
        .as("only nodes holding the cluster secret may join").isEqualTo(403);
    assertThat(signedAdmin("POST", "/v1/cluster/join", "{\"id\":\"../evil\",\"role\":\"target\",\"url\":\"http://x\"}")
        .status()).isEqualTo(400);
    assertThat(signedAdmin("POST", "/v1/cluster/join", "garbage").status()).isEqualTo(400);
    Http.Reply big = admin("POST", "/v1/buckets/newbucket", "{\"checksum\":\"" + "x".repeat(2 << 20) + "\"}");
    assertThat(big.status()).isEqualTo(413);
    Http.Reply metasync = Http.send(Http.NO_FOLLOW, cluster.signed(HttpRequest.newBuilder(
        URI.create(keepOwnerUrl() + "/v1/metasync")).PUT(HttpRequest.BodyPublishers.ofString("{\"map\":42}"))));
    assertThat(metasync.status()).isEqualTo(400);
    assertThat(cluster.map().targets().values()).allSatisfy(n -> assertThat(n.state().wireName()).isEqualTo("active"));
  }

  @Test
  void targets_refuseUnsignedRequests_with403() throws Exception {
    String target = keepOwnerUrl();
    for (String path : List.of("/v1/objects/badinput/keep/this%20object", "/v1/buckets/badinput", "/v1/cluster/map",
        "/s3/badinput/keep/this%20object")) {
      Http.Reply r = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(target + path)).GET());
      assertThat(r.status()).as(path).isEqualTo(403);
    }
    Http.Reply put = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(target + "/v1/objects/badinput/sneaky"))
        .PUT(HttpRequest.BodyPublishers.ofString("data")));
    assertThat(put.status()).isEqualTo(403);
    Http.Reply metasync = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(target + "/v1/metasync"))
        .PUT(HttpRequest.BodyPublishers.ofString("{}")));
    assertThat(metasync.status()).isEqualTo(403);
    // A forged or expired signature is no better.
    Http.Reply forged = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(target
        + "/v1/objects/badinput/keep/this%20object?granary-expires=9999999999&granary-signature=forged")).GET());
    assertThat(forged.status()).isEqualTo(403);
    assertThat(Http.get(target + "/v1/health").status()).as("health stays open").isEqualTo(200);
  }

  @Test
  void badListingParameters_are400() throws Exception {
    for (String q : List.of("limit=abc", "limit=0", "limit=1000000", "token=%21%21%21")) {
      Http.Reply r = Http.get(cluster.endpoint() + "/v1/buckets/" + BUCKET + "?" + q);
      assertThat(r.status()).as(q).isEqualTo(400);
    }
  }

  @Test
  void unknownEndpointsAndMethods_are404And405() throws Exception {
    assertThat(Http.get(cluster.endpoint() + "/v1/whatever").status()).isEqualTo(404);
    Http.Reply patch = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(), BUCKET, KEEP)))
        .method("PATCH", HttpRequest.BodyPublishers.noBody()));
    assertThat(patch.status()).isEqualTo(405);
    assertThat(code(patch.bodyText())).isEqualTo("MethodNotAllowed");
  }

  @Test
  void bucketDelete_notEmpty_is409_unlessForced() throws Exception {
    Http.Reply r = admin("DELETE", "/v1/buckets/" + BUCKET, null);
    assertThat(r.status()).isEqualTo(409);
    assertThat(code(r.bodyText())).isEqualTo("BucketNotEmpty");
    assertThat(admin("DELETE", "/v1/buckets/" + BUCKET + "?force=maybe", null).status()).isEqualTo(400);
    assertThat(admin("POST", "/v1/buckets/" + BUCKET, null).status()).as("exists").isEqualTo(409);
    // An empty bucket deletes without force; a forced delete removes a non-empty one.
    assertThat(admin("POST", "/v1/buckets/scratch", "{\"checksum\":\"md5\"}").status()).isEqualTo(201);
    assertThat(admin("DELETE", "/v1/buckets/scratch", null).status()).isEqualTo(204);
    assertThat(admin("POST", "/v1/buckets/scratch2", null).status()).isEqualTo(201);
    assertThat(Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(), "scratch2", "o")))
        .PUT(HttpRequest.BodyPublishers.ofString("x"))).status()).isEqualTo(200);
    assertThat(admin("DELETE", "/v1/buckets/scratch2?force=true", null).status()).isEqualTo(204);
    // Re-created, it is empty: the old incarnation's objects are gone.
    assertThat(admin("POST", "/v1/buckets/scratch2", null).status()).isEqualTo(201);
    assertThat(ClusterJson.mapper().readTree(Http.get(cluster.endpoint() + "/v1/buckets/scratch2").body())
        .path("entries").size()).isZero();
    assertThat(Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(), "scratch2", "o"))).GET())
        .status()).isEqualTo(404);
    assertThat(admin("DELETE", "/v1/buckets/scratch2", null).status()).isEqualTo(204);
  }
}
