package io.granary.it.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.ClusterJson;
import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.Node;
import io.granary.clustermap.NodeRole;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.hrw.PlacementKey;
import io.granary.it.s3.S3Support;
import io.granary.it.support.Http;
import io.granary.it.support.Names;
import io.granary.it.support.Resources;
import io.granary.it.support.TestCluster;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.ObjectAttributes;
import software.amazon.awssdk.services.s3.model.ObjectCannedACL;
import software.amazon.awssdk.services.s3.model.Permission;
import software.amazon.awssdk.services.s3.model.Type;

/**
 * Objects that have not reached their new owner yet, against real processes: with sending capped at 512 KiB/s a
 * third target's share takes long to arrive, and meanwhile HEAD, GET and S3 CopyObject of objects still on their
 * previous owner answer as if they had moved: native reads that followed the proxy's 307 are sent on to the previous
 * owner by another (and back once the object has left it), S3 reads through the proxy are relayed from that owner
 * from 16 KiB (smaller ones brought first), and a DELETE of one stays deleted (the copy in flight does not bring it
 * back), and an ACL changed meanwhile is changed on the new owner and stays so. Then a short maintenance (no
 * rebalance) answers 503 with Retry-After for its target's objects.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MovingObjectsIT {
  private static final String BUCKET = "moving";
  private static TestCluster cluster;
  private static Dataset data;
  private static S3Client s3;

  @BeforeAll
  static void start() throws Exception {
    cluster = TestCluster.start("moving-objects", 2, List.of(),
        List.of("--health-interval", "1s", "--offline-after", "4s"), false,
        List.of("--rebalance-bandwidth", "512KiB", "--rebalance-streams", "1", "--neighbor-relay-size", "16KiB"));
    assertThat(cluster.createBucket(BUCKET).status()).isEqualTo(201);
    data = new Dataset(900, 41);
    data.upload(cluster.endpoint(), BUCKET, 8);
    s3 = S3Support.sync(cluster);
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(s3, cluster);
  }

  @Test
  @Order(1)
  void objectsNotYetMoved_answerHeadGetAndCopy_andADeleteStaysDeleted() throws Exception {
    ClusterMap before = cluster.map();
    // The objects the third target will own: all of them move to it.
    ClusterMap after = before.withNode(new Node("t3", NodeRole.TARGET, "http://127.0.0.1:1", NodeState.ACTIVE, 1));
    List<Integer> moving = new ArrayList<>();
    for (int i = 0; i < data.size(); i++) {
      if (after.placement().owner(PlacementKey.digest(Bucket.local(BUCKET), data.name(i))).orElseThrow().id()
          .equals("t3")) {
        moving.add(i);
      }
    }
    assertThat(moving.size()).isGreaterThan(200);
    cluster.local().addTarget(List.of());
    long id = Rebalances.latest(cluster).id();

    List<Integer> deleted = moving.subList(moving.size() - 20, moving.size());
    for (int i : deleted) { // most are still on their previous owner: the move has just begun
      Http.Reply r = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(), BUCKET,
          data.name(i)))).DELETE());
      assertThat(r.status()).as("DELETE %s: %s", data.name(i), r.bodyText()).isEqualTo(204);
    }
    for (int i : moving.subList(0, 20)) {
      Http.Reply head = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(),
          BUCKET, data.name(i)))).method("HEAD", HttpRequest.BodyPublishers.noBody()));
      assertThat(head.status()).as("HEAD %s", data.name(i)).isEqualTo(200);
      assertThat(head.header("content-length").map(Long::parseLong).orElse(-1L)).isEqualTo(data.content(i).length);
    }
    for (int i : moving.subList(20, 30)) {
      s3.copyObject(b -> b.sourceBucket(BUCKET).sourceKey(data.name(i)).destinationBucket(BUCKET)
          .destinationKey("copies/" + i));
      ResponseBytes<GetObjectResponse> copy = s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("copies/" + i));
      assertThat(Dataset.crc(copy.asByteArray())).as("copy of %s", data.name(i)).isEqualTo(data.crc(i));
    }
    for (int i : moving.subList(30, 60)) {
      Http.Reply get = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(), BUCKET,
          data.name(i)))).GET());
      assertThat(get.status()).as("GET %s", data.name(i)).isEqualTo(200);
      assertThat(Dataset.crc(get.body())).isEqualTo(data.crc(i));
    }
    // A read of an object not yet moved is answered by the previous owner's own read handler (ranges, conditions);
    // the copy is brought to the new owner meanwhile.
    List<Integer> relayed = moving.subList(60, 90).stream().filter(i -> data.content(i).length >= 16 << 10).limit(5)
        .toList();
    assertThat(relayed).isNotEmpty();
    for (int i : relayed) {
      Http.Reply range = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(),
          BUCKET, data.name(i)))).header("Range", "bytes=10-99").GET());
      assertThat(range.status()).as("range GET %s: %s", data.name(i), range.bodyText()).isEqualTo(206);
      assertThat(range.body()).isEqualTo(Arrays.copyOfRange(data.content(i), 10, 100));
      String etag = range.header("etag").orElseThrow();
      Http.Reply unchanged = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(),
          BUCKET, data.name(i)))).header("If-None-Match", etag).GET());
      assertThat(unchanged.status()).as("conditional GET %s", data.name(i)).isEqualTo(304);
    }
    for (int i : moving.subList(90, 100)) { // through the S3 front door: the proxy relays, and so does the owner
      ResponseBytes<GetObjectResponse> got = s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(data.name(i)));
      assertThat(Dataset.crc(got.asByteArray())).as("S3 GET %s", data.name(i)).isEqualTo(data.crc(i));
    }
    // An ACL changed while its object moves is changed on the new owner, which first brings the object from the
    // previous one (not 404 for an object not there yet), and no later send of the previous owner's copy undoes it.
    List<Integer> aclChanged = moving.subList(moving.size() - 40, moving.size() - 20);
    for (int i : aclChanged) {
      s3.putObjectAcl(b -> b.bucket(BUCKET).key(data.name(i)).acl(ObjectCannedACL.PUBLIC_READ));
      assertThat(publicRead(data.name(i))).as("ACL of %s right after PutObjectAcl", data.name(i)).isTrue();
      assertThat(s3.getObjectAttributes(b -> b.bucket(BUCKET).key(data.name(i))
          .objectAttributes(ObjectAttributes.OBJECT_SIZE)).objectSize()).isEqualTo(data.content(i).length);
    }
    // A native client that followed the proxy's 307 to the new owner is sent on to the previous owner by another
    // 307, whatever the size; once the object has left that target, the same URL sends the client back to the owner.
    String toHolder = null;
    int viaHolder = -1;
    for (int i : moving.subList(100, 200)) {
      String atOwner = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(),
          BUCKET, data.name(i)))).GET()).header("location").orElseThrow();
      assertThat(atOwner).startsWith(cluster.targetUrl("t3"));
      Http.Reply owner = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(atOwner)).GET());
      if (owner.status() == 307) {
        toHolder = owner.header("location").orElseThrow();
        viaHolder = i;
        break;
      }
      assertThat(owner.status()).as("GET %s on its new owner: %s", data.name(i), owner.bodyText()).isEqualTo(200);
      assertThat(Dataset.crc(owner.body())).isEqualTo(data.crc(i)); // it had arrived already
    }
    assertThat(toHolder).as("an object not yet moved, read by redirect").isNotNull()
        .doesNotStartWith(cluster.targetUrl("t3")).contains("granary-neighbor=t3");
    Http.Reply fromHolder = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(toHolder)).GET());
    assertThat(fromHolder.status()).as("GET %s from its previous owner", data.name(viaHolder)).isEqualTo(200);
    assertThat(Dataset.crc(fromHolder.body())).isEqualTo(data.crc(viaHolder));
    String stale = toHolder;
    Http.Reply back = Awaitility.await("the object leaves its previous owner").atMost(Duration.ofSeconds(60))
        .until(() -> Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(stale)).GET()),
            r -> r.status() == 307);
    assertThat(back.header("location").orElseThrow()).startsWith(cluster.targetUrl("t3"))
        .contains("granary-neighbor-miss=1");
    Http.Reply again = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(back.header("location")
        .orElseThrow())).GET());
    assertThat(again.status()).as("back on the owner, which now holds it").isEqualTo(200);
    assertThat(Dataset.crc(again.body())).isEqualTo(data.crc(viaHolder));

    assertThat(neighborReads(cluster.targetUrl("t3"))).as("reads relayed from the previous owners")
        .isGreaterThan(0);
    List<String> read = moving.subList(30, 60).stream().map(data::name).toList();
    Set<Path> onNewOwner = OnDisk.expected(cluster, cluster.map(), Bucket.local(BUCKET), OnDisk.bucketId(cluster,
        BUCKET), read);
    Awaitility.await("objects read while moving are kept by their new owner").atMost(Duration.ofSeconds(60))
        .untilAsserted(() -> assertThat(OnDisk.files(cluster, List.of("t3"), Bucket.local(BUCKET)))
            .containsAll(onNewOwner));
    assertThat(Rebalances.status(cluster, id).path("state").asText()).as("all of it happened while objects moved")
        .isEqualTo("running");

    JsonNode end = Rebalances.awaitEnd(cluster, id, Duration.ofMinutes(3));
    assertThat(end.path("state").asText()).as(end.toString()).isEqualTo("succeeded");
    List<String> kept = new ArrayList<>();
    for (int i = 0; i < data.size(); i++) {
      Http.Reply get = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(), BUCKET,
          data.name(i)))).GET());
      if (deleted.contains(i)) {
        assertThat(get.status()).as("deleted during the move: %s", data.name(i)).isEqualTo(404);
      } else {
        assertThat(get.status()).as(data.name(i)).isEqualTo(200);
        kept.add(data.name(i));
      }
    }
    for (int i : aclChanged) {
      assertThat(publicRead(data.name(i))).as("ACL of %s once every object has moved", data.name(i)).isTrue();
    }
    for (int i : moving.subList(20, 30)) {
      kept.add("copies/" + i);
    }
    OnDisk.assertExactly(OnDisk.files(cluster, cluster.targetIds(), Bucket.local(BUCKET)),
        OnDisk.expected(cluster, cluster.map(), Bucket.local(BUCKET), OnDisk.bucketId(cluster, BUCKET), kept));
    JsonNode page = ClusterJson.mapper().readTree(Http.get(cluster.endpoint() + "/v1/buckets/" + BUCKET
        + "?limit=10000").body());
    assertThat(page.path("entries").size()).isEqualTo(kept.size());
  }

  private static boolean publicRead(String key) {
    return s3.getObjectAcl(b -> b.bucket(BUCKET).key(key)).grants().stream()
        .anyMatch(g -> g.grantee().type() == Type.GROUP && g.permission() == Permission.READ);
  }

  /** The new owner's count of reads answered by relaying them from the target still holding the object. */
  private static double neighborReads(String targetUrl) throws Exception {
    for (String line : Http.get(targetUrl + "/metrics").bodyText().split("\n")) {
      if (line.startsWith("granary_rebalance_neighbor_reads_total")) {
        return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    throw new AssertionError("no granary_rebalance_neighbor_reads_total on " + targetUrl);
  }

  @Test
  @Order(2)
  void maintenanceWithoutRebalance_keepsThePlace_andAnswers503WithRetryAfter() throws Exception {
    ClusterMap before = cluster.map();
    String name = null;
    for (int i = 0; name == null; i++) {
      if (before.placement().owner(PlacementKey.digest(Bucket.local(BUCKET), data.name(i))).orElseThrow().id()
          .equals("t2")) {
        name = data.name(i);
      }
    }
    Http.Reply set = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(cluster.endpoint()
        + "/v1/cluster/nodes/t2")).PUT(HttpRequest.BodyPublishers.ofString(
            "{\"state\":\"maintenance\",\"rebalance\":false}")));
    assertThat(set.status()).as(set.bodyText()).isEqualTo(200);
    ClusterMap suspended = cluster.map();
    assertThat(suspended.targets().get("t2").state()).isEqualTo(NodeState.SUSPENDED);
    assertThat(suspended.rebalance()).as("no data moves").isEqualTo(before.rebalance());

    Http.Reply r = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(), BUCKET,
        name))).GET());
    assertThat(r.status()).isEqualTo(503);
    assertThat(r.header("retry-after")).isPresent();

    Http.Reply back = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(cluster.endpoint()
        + "/v1/cluster/nodes/t2")).PUT(HttpRequest.BodyPublishers.ofString("{\"state\":\"active\"}")));
    assertThat(back.status()).isEqualTo(200);
    assertThat(Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(Names.url(cluster.endpoint(), BUCKET,
        name))).GET()).status()).isEqualTo(200);
  }
}
