package io.granary.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.it.support.Content;
import io.granary.it.support.Http;
import io.granary.it.support.Names;
import io.granary.it.support.TestCluster;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A 2 GiB object PUT and GET through a target whose heap is 128 MiB: the data path streams and never holds
 * an object in memory. The client generates and hashes the bytes as they flow, so it holds none either.
 */
class LargeObjectIT {
  private static final long SIZE = 2L << 30;
  private static final long SEED = 2026;
  private static TestCluster cluster;

  @BeforeAll
  static void start() throws Exception {
    cluster = TestCluster.start("large", 1, List.of("-Xmx128m", "-XX:MaxDirectMemorySize=128m"),
        List.of());
    assertThat(Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(cluster.endpoint() + "/v1/buckets/big"))
        .POST(HttpRequest.BodyPublishers.noBody())).status()).isEqualTo(201);
  }

  @AfterAll
  static void stop() throws Exception {
    if (cluster != null) {
      cluster.closeAndDeleteData();
    }
  }

  @Test
  void twoGibObject_putAndGet_throughTargetWith128MibHeap() throws Exception {
    String expected;
    MessageDigest md = Http.sha256();
    try (InputStream in = Content.stream(SEED, SIZE)) {
      byte[] buf = new byte[1 << 20];
      for (int n; (n = in.read(buf)) > 0; ) {
        md.update(buf, 0, n);
      }
    }
    expected = HexFormat.of().formatHex(md.digest());

    // Ask the proxy where the object goes; with Expect: 100-continue it answers 307 before any body is sent.
    String url = Names.url(cluster.endpoint(), "big", "dataset/shard-0000.tar");
    Http.Reply redirect = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(url)).expectContinue(true)
        .PUT(HttpRequest.BodyPublishers.fromPublisher(
            HttpRequest.BodyPublishers.ofInputStream(() -> Content.stream(SEED, SIZE)), SIZE)));
    assertThat(redirect.status()).isEqualTo(307);
    String location = redirect.header("location").orElseThrow();

    Http.Reply put = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(location)).expectContinue(true)
        .PUT(HttpRequest.BodyPublishers.fromPublisher(
            HttpRequest.BodyPublishers.ofInputStream(() -> Content.stream(SEED, SIZE)), SIZE)));
    assertThat(put.status()).as(put.bodyText()).isEqualTo(200);

    Http.Reply get = Http.sendHashing(Http.FOLLOW, HttpRequest.newBuilder(URI.create(url)).GET());
    assertThat(get.status()).isEqualTo(200);
    assertThat(get.length()).isEqualTo(SIZE);
    assertThat(get.sha256()).isEqualTo(expected);

    Http.Reply tail = Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(url))
        .header("Range", "bytes=" + (SIZE - 1000) + "-").GET());
    assertThat(tail.status()).isEqualTo(206);
    assertThat(tail.header("content-range")).contains("bytes " + (SIZE - 1000) + "-" + (SIZE - 1) + "/" + SIZE);
    try (InputStream in = Content.stream(SEED, SIZE)) {
      in.skipNBytes(SIZE - 1000);
      assertThat(tail.body()).isEqualTo(in.readAllBytes());
    }
    assertThat(cluster.local().process("t1").isAlive()).as("target survived with a 128 MiB heap").isTrue();
  }
}
