package io.granary.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.ClusterJson;
import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.Node;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.NameOrder;
import io.granary.clustermap.hrw.PlacementKey;
import io.granary.it.support.Content;
import io.granary.it.support.Http;
import io.granary.it.support.Names;
import io.granary.it.support.RawHttp;
import io.granary.it.support.TestCluster;
import io.granary.it.support.Resources;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * 1,000 objects of random sizes (0 to 4 MiB) with random names, PUT through the proxy of a 3-target cluster:
 * each reads back byte-exact, lives on its HRW target, and the merged listing returns every name once.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ObjectRoundTripIT {
  private static final int OBJECTS = 1000;
  private static final int MAX_SIZE = 4 << 20;
  private static final String BUCKET = "roundtrip";

  private static TestCluster cluster;
  private static final Map<String, String> sha = new HashMap<>(); // name -> sha256 of what was PUT
  private static final Map<String, long[]> specs = new HashMap<>(); // name -> {seed, size}

  @BeforeAll
  static void start() throws Exception {
    cluster = TestCluster.start("roundtrip", 3);
    Http.Reply r = cluster.createBucket(BUCKET);
    assertThat(r.status()).isEqualTo(201);
    Random rnd = new Random(20261121);
    while (sha.size() < OBJECTS) {
      String name = Names.random(rnd, sha.size());
      long seed = rnd.nextLong();
      int size = rnd.nextInt(10) == 0 ? 0 : rnd.nextInt(MAX_SIZE + 1);
      sha.put(name, Http.sha256(Content.bytes(seed, size)));
      specs.put(name, new long[] {seed, size});
    }
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(cluster);
  }

  private static byte[] content(String name) {
    long[] spec = specs.get(name);
    return Content.bytes(spec[0], (int) spec[1]);
  }

  @Test
  @Order(1)
  void put_thousandObjects_throughProxy_allAcknowledged() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<Http.Reply>> replies = new ArrayList<>();
      int i = 0;
      for (String name : sha.keySet()) {
        boolean expect = i++ % 2 == 0; // half announce the body with Expect: 100-continue, half send it at once
        replies.add(pool.submit(() -> Http.send(Http.FOLLOW,
            HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(), BUCKET, name)))
                .expectContinue(expect)
                .PUT(HttpRequest.BodyPublishers.ofByteArray(content(name))))));
      }
      for (Future<Http.Reply> f : replies) {
        Http.Reply r = f.get();
        assertThat(r.status()).as(r.bodyText()).isEqualTo(200);
        assertThat(r.header("granary-checksum-type")).contains("xxhash64");
        assertThat(r.header("etag")).isPresent();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  @Order(2)
  void get_everyObject_isByteExact_withLengthAndChecksumHeaders() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      Map<String, Future<Http.Reply>> replies = new HashMap<>();
      for (String name : sha.keySet()) {
        replies.put(name, pool.submit(() -> Http.sendHashing(Http.FOLLOW,
            HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(), BUCKET, name))).GET())));
      }
      for (Map.Entry<String, Future<Http.Reply>> e : replies.entrySet()) {
        Http.Reply r = e.getValue().get();
        assertThat(r.status()).as(e.getKey()).isEqualTo(200);
        assertThat(r.sha256()).as(e.getKey()).isEqualTo(sha.get(e.getKey()));
        assertThat(r.header("content-length")).contains(String.valueOf(r.length()));
        assertThat(r.header("granary-checksum-value")).isPresent();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  @Order(3)
  void everyObject_livesOnItsHrwTarget() throws Exception {
    ClusterMap map = cluster.map();
    Map<String, Set<String>> onTarget = new HashMap<>();
    for (String id : cluster.targetIds()) {
      onTarget.put(id, new HashSet<>(listAll(cluster.targetUrl(id), 1000)));
    }
    Map<String, Integer> perTarget = new HashMap<>();
    for (String name : sha.keySet()) {
      Node owner = map.placement().owner(PlacementKey.digest(Bucket.local(BUCKET), name)).orElseThrow();
      perTarget.merge(owner.id(), 1, Integer::sum);
      for (String id : cluster.targetIds()) {
        assertThat(onTarget.get(id).contains(name)).as("%s on %s (owner %s)", name, id, owner.id())
            .isEqualTo(id.equals(owner.id()));
      }
      // The proxy's redirect goes to the same owner.
      Http.Reply head = Http.send(Http.NO_FOLLOW,
          HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(), BUCKET, name)))
              .method("HEAD", HttpRequest.BodyPublishers.noBody()));
      assertThat(head.status()).isEqualTo(307);
      assertThat(head.header("location").orElseThrow()).startsWith(owner.url() + "/v1/objects/" + BUCKET + "/");
    }
    assertThat(perTarget).hasSize(3); // all three targets hold objects
  }

  @Test
  @Order(4)
  void listing_returnsEveryNameExactlyOnce_acrossPages_inOrder() throws Exception {
    List<String> names = listAll(cluster.endpoint(), 97);
    assertThat(names).hasSize(OBJECTS).doesNotHaveDuplicates();
    assertThat(new HashSet<>(names)).isEqualTo(sha.keySet());
    List<String> sorted = new ArrayList<>(names);
    sorted.sort(NameOrder.INSTANCE);
    assertThat(names).isEqualTo(sorted);
  }

  @Test
  @Order(5)
  void listing_withPrefixAndStartAfter_returnsTheMatchingSuffixOfTheOrder() throws Exception {
    List<String> all = listAll(cluster.endpoint(), 1000);
    String prefix = "train/";
    List<String> expected = all.stream().filter(n -> n.startsWith(prefix)).toList();
    List<String> got = new ArrayList<>();
    for (String page : pages(cluster.endpoint(), "prefix=" + enc(prefix), 13)) {
      got.add(page);
    }
    assertThat(got).isEqualTo(expected);

    String after = all.get(all.size() / 2);
    List<String> tail = pages(cluster.endpoint(), "start-after=" + enc(after), 250);
    assertThat(tail).isEqualTo(all.subList(all.size() / 2 + 1, all.size()));
  }

  @Test
  @Order(6)
  void targetAndProxy_keepConnectionsAlive_acrossGetsHeadsAndErrors() throws Exception {
    List<String> names = new ArrayList<>(sha.keySet()).subList(0, 5);
    String owner = cluster.owner(BUCKET, names.get(0)).url();
    String path = "/v1/objects/" + BUCKET + "/" + io.granary.common.http.RequestPath.encodePath(names.get(0));
    String missing = "/v1/objects/" + BUCKET + "/no-such-object";
    List<RawHttp.Response> replies = RawHttp.sequential(owner, List.of(
        "GET " + path + " HTTP/1.1" + cluster.signatureLines("GET", path),
        "HEAD " + path + " HTTP/1.1" + cluster.signatureLines("HEAD", path),
        "GET " + missing + " HTTP/1.1" + cluster.signatureLines("GET", missing),
        "GET " + path + " HTTP/1.1\r\nRange: bytes=0-0" + cluster.signatureLines("GET", path),
        "GET /v1/health HTTP/1.1"));
    assertThat(replies).extracting(RawHttp.Response::status).containsExactly(200, 200, 404, 206, 200);
    assertThat(replies).allSatisfy(r -> assertThat(r.headers().get("connection")).isNotEqualTo("close"));
    List<RawHttp.Response> proxied = RawHttp.sequential(cluster.endpoint(), List.of("GET " + path + " HTTP/1.1",
        "GET /v1/cluster/map HTTP/1.1", "GET /v1/buckets/" + BUCKET + "?limit=2 HTTP/1.1"));
    assertThat(proxied).extracting(RawHttp.Response::status).containsExactly(307, 200, 200);
  }

  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(strings = {"md5", "crc32c", "sha256", "xxhash64"})
  @Order(7)
  void bucketChecksumType_isComputedOnPut_andReturnedOnGetHeadAndListing(String type) throws Exception {
    String bucket = "cksum-" + type;
    Http.Reply created = cluster.createBucket(bucket, "{\"checksum\":\"" + type + "\"}");
    assertThat(created.status()).as(created.bodyText()).isEqualTo(201);
    byte[] data = Content.bytes(99, 777_777);
    String expected = switch (type) {
      case "md5" -> java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("MD5").digest(data));
      case "sha256" -> Http.sha256(data);
      case "crc32c" -> {
        java.util.zip.CRC32C c = new java.util.zip.CRC32C();
        c.update(data);
        yield String.format("%08x", c.getValue());
      }
      default -> String.format("%016x", net.openhft.hashing.LongHashFunction.xx(0).hashBytes(data));
    };
    String url = Names.url(cluster.endpoint(), bucket, "o");
    Http.Reply put = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(url)).PUT(HttpRequest.BodyPublishers.ofByteArray(data)));
    assertThat(put.header("granary-checksum-type")).contains(type);
    assertThat(put.header("granary-checksum-value")).contains(expected);
    Http.Reply get = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(url)).GET());
    assertThat(get.body()).isEqualTo(data);
    assertThat(get.header("granary-checksum-value")).contains(expected);
    assertThat(get.header("etag")).contains("\"" + expected + "\"");
    JsonNode entry = ClusterJson.mapper().readTree(Http.get(cluster.endpoint() + "/v1/buckets/" + bucket).body())
        .path("entries").get(0);
    assertThat(entry.path("checksum").path("type").asText()).isEqualTo(type);
    assertThat(entry.path("checksum").path("value").asText()).isEqualTo(expected);
  }

  /** All names of the bucket at {@code base} (proxy or one target), page by page. */
  private static List<String> listAll(String base, int limit) throws Exception {
    return pages(base, "", limit);
  }

  private static List<String> pages(String base, String query, int limit) throws Exception {
    List<String> names = new ArrayList<>();
    String token = null;
    int pages = 0;
    do {
      String url = base + "/v1/buckets/" + BUCKET + "?limit=" + limit + (query.isEmpty() ? "" : "&" + query)
          + (token == null ? "" : "&token=" + enc(token));
      Http.Reply r = cluster.getSigned(url);
      assertThat(r.status()).as(r.bodyText()).isEqualTo(200);
      JsonNode page = ClusterJson.mapper().readTree(r.body());
      assertThat(page.path("entries").size()).isLessThanOrEqualTo(limit);
      for (JsonNode e : page.path("entries")) {
        names.add(e.path("name").asText());
        assertThat(e.path("size").asLong()).isGreaterThanOrEqualTo(0);
        assertThat(e.path("checksum").path("value").asText()).isNotEmpty();
      }
      token = page.hasNonNull("token") ? page.get("token").asText() : null;
      assertThat(++pages).isLessThan(10_000);
    } while (token != null);
    return names;
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }
}
