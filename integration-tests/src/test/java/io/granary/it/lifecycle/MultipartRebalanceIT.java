package io.granary.it.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.ClusterJson;
import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.hrw.PlacementKey;
import io.granary.common.membership.UploadHolder;
import io.granary.it.s3.S3Support;
import io.granary.it.support.Content;
import io.granary.it.support.Http;
import io.granary.it.support.Resources;
import io.granary.it.support.TestCluster;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.Part;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Multipart uploads that span a change of placement, against real processes and the AWS SDK (retries off, so every
 * answer is the cluster's first): uploads begun on 3 targets go on while (1) a fourth target joins and takes over
 * some of their keys, and (2) the target holding uploads is decommissioned. The remaining parts, ListParts,
 * ListMultipartUploads, Complete (also conditional, and retried) and Abort all succeed across the change; completed
 * objects read back byte-exact and live only on their HRW owner afterwards, and no upload is left on any disk.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MultipartRebalanceIT {
  private static final String BUCKET = "mpu";
  private static final int MIB = 1 << 20;
  private static final Duration MAX_REBALANCE = Duration.ofMinutes(3);

  private static TestCluster cluster;
  private static S3Client s3;
  private static final List<String> completed = new ArrayList<>(); // every object completed here, for the disk check

  @BeforeAll
  static void start() throws Exception {
    cluster = TestCluster.start("mp-rebalance", 3);
    assertThat(cluster.createBucket(BUCKET).status()).isEqualTo(201);
    s3 = S3Support.sync(cluster);
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(s3, cluster);
  }

  @Test
  @Order(1)
  void aTargetJoining_midUpload_takesOverKeys_andTheUploadsGoOnAndComplete() throws Exception {
    Map<String, String> uploads = new LinkedHashMap<>(); // key -> upload id
    for (int i = 0; i < 24; i++) {
      String key = "join/" + i;
      String id = create(key);
      uploadPart(key, id, 2, last(i)); // the small last part first: S3 takes parts in any order
      uploads.put(key, id);
    }
    ClusterMap before = cluster.map();

    String added = cluster.local().addTarget(List.of());
    long rb = cluster.map().rebalance().id();
    ClusterMap after = cluster.map();
    List<String> moved = uploads.keySet().stream().filter(k -> !owner(before, k).equals(owner(after, k))).toList();
    assertThat(moved).as("keys the new target took over").isNotEmpty().allMatch(k -> owner(after, k).equals(added));
    String stayed = uploads.keySet().stream().filter(k -> !moved.contains(k)).findFirst().orElseThrow();

    assertThat(listedUploads("join/")).as("ListMultipartUploads across the change").containsAll(uploads.values());
    String aborted = moved.get(0);
    List<String> toComplete = new ArrayList<>(moved.subList(1, moved.size()));
    toComplete.add(stayed);
    for (String key : toComplete) {
      int i = index(key);
      uploadPart(key, uploads.get(key), 1, first(i));
      assertThat(s3.listParts(b -> b.bucket(BUCKET).key(key).uploadId(uploads.get(key))).parts())
          .extracting(Part::partNumber, Part::size).containsExactly(
              org.assertj.core.groups.Tuple.tuple(1, (long) 5 * MIB), org.assertj.core.groups.Tuple.tuple(2, 1000L + i));
    }
    s3.abortMultipartUpload(b -> b.bucket(BUCKET).key(aborted).uploadId(uploads.get(aborted)));
    assertThat(catchThrowableOfType(() -> s3.listParts(b -> b.bucket(BUCKET).key(aborted)
        .uploadId(uploads.get(aborted))), S3Exception.class).awsErrorDetails().errorCode()).isEqualTo("NoSuchUpload");

    if (moved.size() > 1) { // the condition is decided on the key's new owner, not where the upload is
      String key = moved.get(1);
      s3.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromBytes(Content.bytes(7, 10)));
      S3Exception refused = catchThrowableOfType(() -> s3.completeMultipartUpload(b -> b.bucket(BUCKET).key(key)
          .uploadId(uploads.get(key)).ifNoneMatch("*").multipartUpload(parts(key))), S3Exception.class);
      assertThat(refused.statusCode()).isEqualTo(412);
      assertThat(read(key)).as("a refused completion changes nothing").isEqualTo(Content.bytes(7, 10));
    }
    for (String key : toComplete) {
      CompleteMultipartUploadResponse done = s3.completeMultipartUpload(b -> b.bucket(BUCKET).key(key)
          .uploadId(uploads.get(key)).multipartUpload(parts(key)));
      assertThat(done.eTag()).endsWith("-2\"");
      CompleteMultipartUploadResponse again = s3.completeMultipartUpload(b -> b.bucket(BUCKET).key(key)
          .uploadId(uploads.get(key)).multipartUpload(parts(key)));
      assertThat(again.eTag()).as("a retried completion").isEqualTo(done.eTag());
      completed.add(key);
      assertThat(read(key)).as(key).isEqualTo(content(index(key)));
    }
    for (String key : uploads.keySet()) {
      if (!toComplete.contains(key) && !key.equals(aborted)) {
        s3.abortMultipartUpload(b -> b.bucket(BUCKET).key(key).uploadId(uploads.get(key)));
      }
    }

    JsonNode end = Rebalances.awaitEnd(cluster, rb, MAX_REBALANCE);
    assertThat(end.path("state").asText()).as(end.toString()).isEqualTo("succeeded");
    assertOnTheirOwnersOnly(cluster.map());
    assertThat(uploadFiles()).as("part files left on any target").isEmpty();
  }

  @Test
  @Order(2)
  void decommissioningTheTargetHoldingUploads_waitsForThem_andTheyComplete() throws Exception {
    ClusterMap before = cluster.map();
    String leaving = "t2";
    Map<String, String> uploads = new LinkedHashMap<>();
    for (int i = 100; uploads.size() < 3; i++) {
      String key = "leave/" + i;
      if (owner(before, key).equals(leaving)) {
        String id = create(key);
        assertThat(UploadHolder.holderOf(id)).isEqualTo(leaving);
        uploadPart(key, id, 2, last(i));
        uploads.put(key, id);
      }
    }

    Http.Reply r = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(cluster.endpoint()
        + "/v1/cluster/nodes/" + leaving)).PUT(HttpRequest.BodyPublishers.ofString("{\"state\":\"decommissioned\"}")));
    assertThat(r.status()).as(r.bodyText()).isEqualTo(200);
    ClusterMap during = ClusterJson.mapper().readValue(r.body(), ClusterMap.class);
    long rb = during.rebalance().id();
    // Its objects move off, but it stays (and the rebalance runs) while it holds uploads.
    await().atMost(MAX_REBALANCE).until(() -> Rebalances.status(cluster, rb).path("waiting_for").toString()
        .contains(leaving + " still holds objects or multipart uploads") && !OnDisk.holdsAnyObject(cluster, leaving));
    assertThat(cluster.map().targets().get(leaving).state()).isEqualTo(NodeState.DECOMMISSIONING);
    assertThat(listedUploads("leave/")).containsExactlyInAnyOrderElementsOf(uploads.values());

    List<String> keys = new ArrayList<>(uploads.keySet());
    String aborted = keys.get(2);
    for (String key : keys.subList(0, 2)) {
      uploadPart(key, uploads.get(key), 1, first(index(key)));
      assertThat(s3.listParts(b -> b.bucket(BUCKET).key(key).uploadId(uploads.get(key))).parts()).hasSize(2);
      s3.completeMultipartUpload(b -> b.bucket(BUCKET).key(key).uploadId(uploads.get(key))
          .multipartUpload(parts(key)));
      completed.add(key);
      assertThat(read(key)).as(key).isEqualTo(content(index(key)));
    }
    s3.abortMultipartUpload(b -> b.bucket(BUCKET).key(aborted).uploadId(uploads.get(aborted)));

    JsonNode end = Rebalances.awaitEnd(cluster, rb, MAX_REBALANCE);
    assertThat(end.path("state").asText()).as(end.toString()).isEqualTo("succeeded");
    ClusterMap after = cluster.map();
    assertThat(after.targets()).doesNotContainKey(leaving);
    for (String key : completed) {
      assertThat(read(key)).as(key).isEqualTo(content(index(key)));
    }
    assertOnTheirOwnersOnly(after);
    assertThat(uploadFiles()).as("part files left on any target").isEmpty();
    await().atMost(Duration.ofSeconds(40)).until(() -> !cluster.local().process(leaving).isAlive());
  }

  private static String create(String key) {
    return s3.createMultipartUpload(b -> b.bucket(BUCKET).key(key)).uploadId();
  }

  private static void uploadPart(String key, String uploadId, int number, byte[] body) {
    s3.uploadPart(b -> b.bucket(BUCKET).key(key).uploadId(uploadId).partNumber(number), RequestBody.fromBytes(body));
  }

  private static byte[] first(int i) {
    return Content.bytes(i, 5 * MIB);
  }

  private static byte[] last(int i) {
    return Content.bytes(10_000 + i, 1000 + i);
  }

  private static byte[] content(int i) {
    byte[] a = first(i);
    byte[] b = last(i);
    byte[] all = new byte[a.length + b.length];
    System.arraycopy(a, 0, all, 0, a.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    return all;
  }

  private static int index(String key) {
    return Integer.parseInt(key.substring(key.indexOf('/') + 1));
  }

  /** The part list as the client kept it: ETags from ListParts. */
  private static software.amazon.awssdk.services.s3.model.CompletedMultipartUpload parts(String key) {
    return software.amazon.awssdk.services.s3.model.CompletedMultipartUpload.builder().parts(
        CompletedPart.builder().partNumber(1).eTag(md5(first(index(key)))).build(),
        CompletedPart.builder().partNumber(2).eTag(md5(last(index(key)))).build()).build();
  }

  private static String md5(byte[] b) {
    try {
      return "\"" + java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("MD5").digest(b)) + "\"";
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static byte[] read(String key) {
    return s3.getObject(b -> b.bucket(BUCKET).key(key), ResponseTransformer.toBytes()).asByteArray();
  }

  private static List<String> listedUploads(String prefix) {
    return s3.listMultipartUploads(b -> b.bucket(BUCKET).prefix(prefix)).uploads().stream()
        .map(MultipartUpload::uploadId).toList();
  }

  private static String owner(ClusterMap map, String key) {
    return map.placement().owner(PlacementKey.digest(Bucket.local(BUCKET), key)).orElseThrow().id();
  }

  /** Every completed object is on its owner's HRW mountpath, and nowhere else. */
  private static void assertOnTheirOwnersOnly(ClusterMap map) throws Exception {
    Bucket b = Bucket.local(BUCKET);
    OnDisk.assertExactly(OnDisk.files(cluster, cluster.targetIds(), b),
        OnDisk.expected(cluster, map, b, OnDisk.bucketId(cluster, BUCKET), completed));
  }

  /** Part files under any target's {@code MOUNTPATH/uploads}. */
  private static List<Path> uploadFiles() throws IOException {
    List<Path> out = new ArrayList<>();
    for (String t : cluster.targetIds()) {
      for (Path mp : cluster.mountpaths(t)) {
        Path dir = mp.resolve("uploads");
        if (Files.isDirectory(dir)) {
          try (Stream<Path> walk = Files.walk(dir)) {
            walk.filter(Files::isRegularFile).forEach(out::add);
          }
        }
      }
    }
    return out;
  }
}
