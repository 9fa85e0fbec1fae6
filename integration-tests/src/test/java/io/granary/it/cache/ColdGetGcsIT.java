package io.granary.it.cache;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.ClusterJson;
import io.granary.it.support.Content;
import io.granary.it.support.Http;
import io.granary.it.support.Resources;
import io.granary.it.support.TestCluster;
import io.granary.testkit.FakeGcsServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A cluster caching a GCS bucket through the real google-cloud-storage client, pointed at a GCS JSON API server
 * that returns real md5Hash, crc32c and generation: cold GETs verify them, and corruption at rest is not cached.
 */
class ColdGetGcsIT {
  private static final String BUCKET = "remote-gcs";
  private static FakeGcsServer gcs;
  private static TestCluster cluster;

  @BeforeAll
  static void start() throws Exception {
    Path work = Files.createTempDirectory("coldget-gcs");
    gcs = FakeGcsServer.start(work.resolve("gcs"));
    gcs.createBucket(BUCKET);
    cluster = TestCluster.start("coldget-gcs", 1);
    Http.Reply r = RemoteBuckets.register(cluster, "gcp", BUCKET, "{\"backend\":{\"endpoint\":\"" + gcs.endpoint()
        + "\",\"anonymous\":true},\"freshness\":{\"ttl\":\"never\"}}");
    assertThat(r.status()).as(r.bodyText()).isEqualTo(201);
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(cluster, gcs);
  }

  @Test
  void coldGet_isByteExact_withTheMd5AsETag_andOneDownload() throws Exception {
    byte[] data = Content.bytes(31, 2_500_000);
    gcs.putObject(BUCKET, "data/shard-0001.tar", data, "application/x-tar");
    Http.Reply r = RemoteBuckets.get(cluster, "gcp", BUCKET, "data/shard-0001.tar", null);
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.body()).isEqualTo(data);
    String md5 = HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(data));
    assertThat(r.header("ETag")).contains("\"" + md5 + "\"");
    assertThat(RemoteBuckets.get(cluster, "gcp", BUCKET, "data/shard-0001.tar", null).body()).isEqualTo(data);
    assertThat(gcs.downloads(BUCKET, "data/shard-0001.tar")).isEqualTo(1);
  }

  @Test
  void corruptionAtRest_failsVerification_andIsNotCached() throws Exception {
    byte[] data = Content.bytes(32, 800_000);
    gcs.putObject(BUCKET, "bad/rotten.bin", data, null);
    gcs.corruptObject(BUCKET, "bad/rotten.bin");
    try {
      Http.Reply r = RemoteBuckets.get(cluster, "gcp", BUCKET, "bad/rotten.bin", null);
      assertThat(r.status()).isGreaterThanOrEqualTo(500);
    } catch (IOException cutShort) {
      // the body was cut before its last byte: the client never had the corrupt object whole
    }
    Http.Reply cached = Http.get(cluster.endpoint() + "/v1/buckets/" + BUCKET + "?provider=gcp&cached=true");
    List<String> names = new ArrayList<>();
    for (JsonNode e : ClusterJson.mapper().readTree(cached.body()).path("entries")) {
      names.add(e.path("name").asText());
    }
    assertThat(names).doesNotContain("bad/rotten.bin");
  }

  @Test
  void put_isWrittenThroughToGcs_andDeleteRemovesItThere() throws Exception {
    byte[] data = Content.bytes(33, 700_000);
    Http.Reply put = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(
        RemoteBuckets.objectUrl(cluster, "gcp", BUCKET, "wt/object.bin", null)))
        .PUT(HttpRequest.BodyPublishers.ofByteArray(data)));
    assertThat(put.status()).as(put.bodyText()).isEqualTo(200);
    assertThat(gcs.generation(BUCKET, "wt/object.bin")).isPositive();
    Http.Reply atGcs = Http.get(gcs.endpoint() + "/download/storage/v1/b/" + BUCKET + "/o/wt%2Fobject.bin?alt=media");
    assertThat(atGcs.body()).isEqualTo(data);
    assertThat(RemoteBuckets.get(cluster, "gcp", BUCKET, "wt/object.bin", null).body()).isEqualTo(data);
    assertThat(gcs.downloads(BUCKET, "wt/object.bin")).as("served from the cache").isEqualTo(1);

    Http.Reply del = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(
        RemoteBuckets.objectUrl(cluster, "gcp", BUCKET, "wt/object.bin", null))).DELETE());
    assertThat(del.status()).isEqualTo(204);
    assertThat(gcs.generation(BUCKET, "wt/object.bin")).isEqualTo(-1);
    assertThat(RemoteBuckets.get(cluster, "gcp", BUCKET, "wt/object.bin", null).status()).isEqualTo(404);
  }

  @Test
  void missingObject_is404_andListingComesFromTheRemote() throws Exception {
    assertThat(RemoteBuckets.get(cluster, "gcp", BUCKET, "no/such", null).status()).isEqualTo(404);
    gcs.putObject(BUCKET, "listed/a", new byte[10], null);
    gcs.putObject(BUCKET, "listed/b", new byte[20], null);
    Http.Reply page = Http.get(cluster.endpoint() + "/v1/buckets/" + BUCKET + "?provider=gcp&prefix=listed/");
    JsonNode entries = ClusterJson.mapper().readTree(page.body()).path("entries");
    assertThat(entries).hasSize(2);
    assertThat(entries.get(0).path("name").asText()).isEqualTo("listed/a");
    assertThat(entries.get(1).path("size").asLong()).isEqualTo(20);
    assertThat(entries.get(0).path("cached").asBoolean()).isFalse();
  }
}
