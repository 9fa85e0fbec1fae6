package io.granary.it.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.ClusterJson;
import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.it.support.Content;
import io.granary.it.support.Http;
import io.granary.it.support.Names;
import io.granary.it.support.Resources;
import io.granary.it.support.TestCluster;
import io.granary.target.meta.FlexibleChecksum;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.meta.ObjectMetaCodec;
import java.net.URI;
import java.net.http.HttpRequest;
import java.util.List;
import java.util.Map;
import net.openhft.hashing.LongHashFunction;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Bad input to the lifecycle endpoints, against real processes: each gets a clear error with the right status and
 * changes nothing (the cluster map keeps its version; no object appears). Two targets whose mountpaths are capped at
 * 4 MiB each, so a decommission that would not fit on the other target is refused.
 */
@TestMethodOrder(MethodOrderer.MethodName.class)
class LifecycleBadInputIT {
  private static final String BUCKET = "bad";
  private static TestCluster cluster;

  @BeforeAll
  static void start() throws Exception {
    cluster = TestCluster.start("lifecycle-bad-input", 2, List.of(),
        List.of("--health-interval", "1s", "--offline-after", "4s"), false,
        List.of("--capacity", "4MiB", "--reserve", "0", "--space-check-interval", "1s"));
    assertThat(cluster.createBucket(BUCKET).status()).isEqualTo(201);
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(cluster);
  }

  private static Http.Reply send(String method, String path, String body) throws Exception {
    return Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(cluster.endpoint() + path))
        .header("Content-Type", "application/json")
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body)));
  }

  /** No rebalance running: the map changes only when a test changes it. */
  @org.junit.jupiter.api.BeforeEach
  void settled() {
    org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(60))
        .until(() -> cluster.map().settled());
  }

  private static String code(Http.Reply r) throws Exception {
    return ClusterJson.mapper().readTree(r.body()).path("code").asText();
  }

  @Test
  void nodeEndpoints_refuseUnknownNodesAndMalformedBodies_changingNothing() throws Exception {
    ClusterMap before = cluster.map();
    for (Http.Reply unknown : List.of(send("GET", "/v1/cluster/nodes/nope", null),
        send("PUT", "/v1/cluster/nodes/nope", "{\"state\":\"maintenance\"}"),
        send("PUT", "/v1/cluster/nodes/nope", "{\"weight\":2}"))) {
      assertThat(unknown.status()).isEqualTo(404);
      assertThat(code(unknown)).as(unknown.bodyText()).isEqualTo("NodeNotFound");
    }
    for (String bad : List.of("not json", "{}", "[]", "{\"state\":5}", "{\"state\":\"gone\"}", "{\"weight\":\"x\"}",
        "{\"weight\":-1}", "{\"weight\":0}", "{\"weight\":2,\"state\":\"active\"}", "{\"foo\":1}",
        "{\"state\":\"active\",\"rebalance\":false}", "{\"state\":\"maintenance\",\"rebalance\":\"no\"}")) {
      Http.Reply r = send("PUT", "/v1/cluster/nodes/t1", bad);
      assertThat(r.status()).as(bad + " -> " + r.bodyText()).isEqualTo(400);
      assertThat(code(r)).as(bad).isIn("MalformedJSON", "InvalidArgument");
    }
    Http.Reply offline = send("PUT", "/v1/cluster/nodes/t1", "{\"state\":\"offline\"}");
    assertThat(offline.status()).isEqualTo(409);
    assertThat(cluster.map().version()).as("nothing changed").isEqualTo(before.version());
  }

  @Test
  void removingTheLastTarget_orMoreThanTheRestCanHold_is409_andChangesNothing() throws Exception {
    // 8 MiB on the two targets: more than one target's room (4 MiB x 2 mountpaths below the 90% high watermark),
    // so whichever target leaves, what it holds does not fit in the other's room beside the other's own share.
    for (int i = 0; i < 40; i++) {
      Http.Reply put = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(), BUCKET,
          "big-" + i))).PUT(HttpRequest.BodyPublishers.ofByteArray(Content.bytes(i, 200 << 10))));
      assertThat(put.status()).as(put.bodyText()).isEqualTo(200);
    }
    ClusterMap before = cluster.map();
    Http.Reply full = send("PUT", "/v1/cluster/nodes/t1", "{\"state\":\"decommissioned\"}");
    assertThat(full.status()).as(full.bodyText()).isEqualTo(409);
    assertThat(code(full)).isEqualTo("InsufficientCapacity");
    assertThat(cluster.map().version()).isEqualTo(before.version());

    for (int i = 0; i < 40; i++) { // make room: then t1 may go into maintenance, but t2 may not follow
      Http.Reply del = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(), BUCKET,
          "big-" + i))).DELETE());
      assertThat(del.status()).isEqualTo(204);
    }
    Http.Reply maint = send("PUT", "/v1/cluster/nodes/t1", "{\"state\":\"maintenance\"}");
    assertThat(maint.status()).as(maint.bodyText()).isEqualTo(200);
    ClusterMap during = cluster.map();
    Http.Reply last = send("PUT", "/v1/cluster/nodes/t2", "{\"state\":\"decommissioned\"}");
    assertThat(last.status()).as(last.bodyText()).isEqualTo(409);
    assertThat(code(last)).isEqualTo("InvalidNodeState");
    assertThat(ClusterJson.mapper().readTree(last.body()).path("message").asText()).contains("last target");
    assertThat(cluster.map().version()).isEqualTo(during.version());
    assertThat(cluster.map().targets().get("t2").state()).isEqualTo(NodeState.ACTIVE);
    assertThat(send("PUT", "/v1/cluster/nodes/t1", "{\"state\":\"active\"}").status()).isEqualTo(200);
    settled();
  }

  @Test
  void rebalanceJobs_refuseUnknownIdsAndBodies() throws Exception {
    ClusterMap before = cluster.map();
    for (String id : List.of("rb-999999", "rb-x", "rb-0", "rb-")) {
      assertThat(send("GET", "/v1/jobs/" + id, null).status()).as(id).isEqualTo(404);
      assertThat(send("DELETE", "/v1/jobs/" + id, null).status()).as(id).isEqualTo(404);
    }
    Http.Reply extra = send("POST", "/v1/jobs", "{\"kind\":\"rebalance\",\"bucket\":\"x\"}");
    assertThat(extra.status()).as(extra.bodyText()).isEqualTo(400);
    assertThat(cluster.map().version()).isEqualTo(before.version());
    Http.Reply started = send("POST", "/v1/jobs", "{\"kind\":\"rebalance\"}");
    assertThat(started.status()).as(started.bodyText()).isEqualTo(201);
    String id = ClusterJson.mapper().readTree(started.body()).path("id").asText();
    JsonNode end = Rebalances.awaitEnd(cluster, Long.parseLong(id.substring(3)), java.time.Duration.ofSeconds(60));
    assertThat(end.path("state").asText()).isEqualTo("succeeded");
    Http.Reply again = send("DELETE", "/v1/jobs/" + id, null);
    assertThat(again.status()).as("aborting a finished rebalance").isEqualTo(409);
  }

  @Test
  void transportEndpoints_refuseUnsignedAndMalformedCopies_storingNothing() throws Exception {
    String t = cluster.targetUrl("t1");
    String bid = OnDisk.bucketId(cluster, BUCKET);
    byte[] body = Content.bytes(5, 4096);
    ObjectMeta meta = new ObjectMeta(body.length, ChecksumType.XXHASH64,
        String.format("%016x", LongHashFunction.xx().hashBytes(body)), System.currentTimeMillis());
    byte[] good = ObjectMetaCodec.encode(meta);
    String name = ownedBy("t1");
    String path = "/v1/transport/objects/" + BUCKET + "/" + name + "?provider=ais&bid=" + bid;

    Http.Reply unsigned = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(t + path))
        .header("granary-object-meta-length", String.valueOf(good.length))
        .PUT(HttpRequest.BodyPublishers.ofByteArray(concat(good, body))));
    assertThat(unsigned.status()).isEqualTo(403);

    // The record leads the body; its length is a header.
    Map<String, byte[]> cases = new java.util.LinkedHashMap<>();
    cases.put("", concat(good, body)); // no length
    cases.put("x", concat(good, body)); // not a number
    cases.put("0", concat(good, body)); // out of bounds
    cases.put(String.valueOf(good.length + body.length + 1), concat(good, body)); // longer than the body
    cases.put("3", concat(new byte[] {9, 9, 9}, body)); // not a record
    for (Map.Entry<String, byte[]> c : cases.entrySet()) {
      Http.Reply r = signedPut(t + path, c.getKey(), c.getValue());
      assertThat(r.status()).as("record length '" + c.getKey() + "': " + r.bodyText()).isEqualTo(400);
    }
    Http.Reply wrongBucket = signedPut(t + "/v1/transport/objects/" + BUCKET + "/" + name + "?provider=ais&bid=0000",
        String.valueOf(good.length), concat(good, body));
    assertThat(wrongBucket.status()).as(wrongBucket.bodyText()).isEqualTo(409);
    Http.Reply shorter = signedPut(t + path, String.valueOf(good.length),
        concat(good, java.util.Arrays.copyOf(body, 100)));
    assertThat(shorter.status()).as(shorter.bodyText()).isEqualTo(400);
    byte[] corrupt = body.clone();
    corrupt[7] ^= 1;
    Http.Reply bad = signedPut(t + path, String.valueOf(good.length), concat(good, corrupt));
    assertThat(bad.status()).as(bad.bodyText()).isEqualTo(400);
    assertThat(code(bad)).isEqualTo("BadDigest");
    assertThat(Http.get(Names.url(cluster.endpoint(), BUCKET, name)).status()).as("nothing stored").isEqualTo(404);

    Http.Reply ok = signedPut(t + path, String.valueOf(good.length), concat(good, body));
    // (the owner's copy, as a rebalance would leave it: it reads back through the proxy)
    assertThat(ok.status()).as(ok.bodyText()).isEqualTo(200);
    assertThat(ClusterJson.mapper().readTree(ok.body()).path("outcome").asText()).isEqualTo("stored");
    Http.Reply same = signedPut(t + path, String.valueOf(good.length), concat(good, body));
    assertThat(ClusterJson.mapper().readTree(same.body()).path("outcome").asText()).as("the same version again")
        .isEqualTo("kept");

    // A multipart object's record keeps every part's checksum: 10,000 SHA-256 ones outgrow any header, not the body.
    String many = ownedBy("t1", 1);
    List<String> partSums = java.util.stream.IntStream.range(0, 10_000).mapToObj(i -> String.format("%064x", i))
        .toList();
    ObjectMeta big = new ObjectMeta(body.length, ChecksumType.XXHASH64, meta.checksum(), System.currentTimeMillis(),
        "0123456789abcdef0123456789abcdef-10000", null, Map.of(), Map.of(), java.util.stream.Stream.concat(
            java.util.stream.Stream.of((long) body.length), java.util.Collections.nCopies(9_999, 0L).stream()).toList()).withFlexible(new FlexibleChecksum(ChecksumType.SHA256, "ab".repeat(32),
                FlexibleChecksum.Kind.COMPOSITE, partSums));
    byte[] bigRecord = ObjectMetaCodec.encode(big);
    assertThat(bigRecord.length).isGreaterThan(256 * 1024);
    Http.Reply manyParts = signedPut(t + "/v1/transport/objects/" + BUCKET + "/" + many + "?provider=ais&bid=" + bid,
        String.valueOf(bigRecord.length), concat(bigRecord, body));
    assertThat(manyParts.status()).as(manyParts.bodyText()).isEqualTo(200);
    Http.Reply back = Http.get(Names.url(cluster.endpoint(), BUCKET, many));
    assertThat(back.status()).isEqualTo(200);
    assertThat(back.body()).isEqualTo(body);

    Http.Reply noBefore = Http.send(Http.NO_FOLLOW, cluster.signed(HttpRequest.newBuilder(URI.create(t
        + "/v1/transport/objects/" + BUCKET + "/" + name + "?provider=ais")).DELETE()));
    assertThat(noBefore.status()).isEqualTo(400);
    Http.Reply pushNowhere = Http.send(Http.NO_FOLLOW, cluster.signed(HttpRequest.newBuilder(URI.create(t
        + "/v1/transport/push/" + BUCKET + "/" + name + "?provider=ais&to=nope"))
        .POST(HttpRequest.BodyPublishers.noBody())));
    assertThat(pushNowhere.status()).isEqualTo(400);
    Http.Reply pushMissing = Http.send(Http.NO_FOLLOW, cluster.signed(HttpRequest.newBuilder(URI.create(t
        + "/v1/transport/push/" + BUCKET + "/absent?provider=ais&to=t2")).POST(HttpRequest.BodyPublishers.noBody())));
    assertThat(pushMissing.status()).isEqualTo(404);
  }

  /** A name {@code target} owns under the current map. */
  private static String ownedBy(String target) throws Exception {
    return ownedBy(target, 0);
  }

  /** The {@code skip}+1st name {@code target} owns under the current map. */
  private static String ownedBy(String target, int skip) throws Exception {
    for (int i = 0; ; i++) {
      if (cluster.owner(BUCKET, "moved-" + i).id().equals(target) && skip-- == 0) {
        return "moved-" + i;
      }
    }
  }

  private static Http.Reply signedPut(String url, String recordLength, byte[] body) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).PUT(HttpRequest.BodyPublishers.ofByteArray(body));
    if (!recordLength.isEmpty()) {
      b.header("granary-object-meta-length", recordLength);
    }
    return Http.send(Http.NO_FOLLOW, cluster.signed(b));
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
