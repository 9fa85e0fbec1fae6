package io.granary.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/** FaultProxy between the real aws-sdk-java-v2 client (SigV4 signed for the proxy's host:port) and S3Proxy. */
class FaultProxyS3Test {
  @TempDir
  static Path dir;
  static S3ProxyServer server;
  static FaultProxy proxy;
  static S3Client s3;
  static final byte[] DATA = GcsClients.random(100_000, 11);
  static final Predicate<FaultProxy.Recorded> GET_OBJ =
      r -> r.method().equals("GET") && r.pathAndQuery().startsWith("/bkt/obj");

  @BeforeAll
  static void start() throws Exception {
    server = S3ProxyServer.start(dir);
    proxy = FaultProxy.start(server.endpoint());
    s3 = S3Clients.s3(proxy.endpoint());
    s3.createBucket(b -> b.bucket("bkt"));
    s3.putObject(p -> p.bucket("bkt").key("obj"), RequestBody.fromBytes(DATA));
  }

  @AfterAll
  static void stop() {
    s3.close();
    proxy.close();
    server.close();
  }

  @AfterEach
  void reset() {
    proxy.clearFaults();
    proxy.resetCounts();
  }

  @Test
  void passThrough_signedRequestsWork() {
    byte[] small = "through the proxy".getBytes();
    s3.putObject(p -> p.bucket("bkt").key("dir/small"), RequestBody.fromBytes(small)); // aws-chunked, signed

    assertThat(s3.getObjectAsBytes(g -> g.bucket("bkt").key("dir/small")).asByteArray()).isEqualTo(small);
    assertThat(s3.getObjectAsBytes(g -> g.bucket("bkt").key("obj").range("bytes=100-199")).asByteArray())
        .isEqualTo(Arrays.copyOfRange(DATA, 100, 200));
    assertThat(s3.headObject(h -> h.bucket("bkt").key("obj")).contentLength()).isEqualTo(DATA.length);
    assertThat(s3.listObjectsV2(l -> l.bucket("bkt").prefix("dir/")).contents()).extracting(S3Object::key)
        .containsExactly("dir/small");

    assertThat(proxy.requests()).extracting(FaultProxy.Recorded::method)
        .containsExactly("PUT", "GET", "GET", "HEAD", "GET");
    assertThat(proxy.count(r -> "bytes=100-199".equals(r.range()))).isEqualTo(1);
    assertThat(proxy.count(r -> r.pathAndQuery().startsWith("/bkt?list-type=2"))).isEqualTo(1);
  }

  @Test
  void status503_isRetriedByTheClient_thenForeverFails() {
    proxy.inject(GET_OBJ, new FaultProxy.Fault.Status(503), 2);
    assertThat(s3.getObjectAsBytes(g -> g.bucket("bkt").key("obj")).asByteArray()).isEqualTo(DATA);
    assertThat(proxy.count(GET_OBJ)).isEqualTo(3);

    proxy.inject(GET_OBJ, new FaultProxy.Fault.Status(503), -1);
    assertThatThrownBy(() -> s3.getObjectAsBytes(g -> g.bucket("bkt").key("obj")))
        .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(503));
    assertThat(proxy.count(GET_OBJ)).isEqualTo(6); // standard retry mode: 3 attempts
  }

  @Test
  void truncate_closesMidBody_andTheRetrySucceeds() {
    proxy.inject(GET_OBJ, new FaultProxy.Fault.Truncate(1000), 1);
    assertThat(s3.getObjectAsBytes(g -> g.bucket("bkt").key("obj")).asByteArray()).isEqualTo(DATA);
    assertThat(proxy.count(GET_OBJ)).isEqualTo(2);
  }

  @Test
  void corrupt_flipsExactlyOneByte() {
    proxy.inject(GET_OBJ, new FaultProxy.Fault.Corrupt(70_000), 1);
    byte[] got = s3.getObjectAsBytes(g -> g.bucket("bkt").key("obj")).asByteArray();
    assertThat(got).hasSize(DATA.length);
    assertThat(got[70_000]).isEqualTo((byte) ~DATA[70_000]);
    got[70_000] = DATA[70_000];
    assertThat(got).isEqualTo(DATA);
    assertThat(s3.getObjectAsBytes(g -> g.bucket("bkt").key("obj")).asByteArray()).isEqualTo(DATA);
  }

  @Test
  void stallBeforeHead_exceedsSocketTimeout_andIsRetried() {
    // The client's socket timeout is 3 s.
    proxy.inject(GET_OBJ, new FaultProxy.Fault.Stall(Duration.ofMillis(3500), 0), 1);
    long t0 = System.nanoTime();
    assertThat(s3.getObjectAsBytes(g -> g.bucket("bkt").key("obj")).asByteArray()).isEqualTo(DATA);
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isGreaterThanOrEqualTo(Duration.ofSeconds(3));
    assertThat(proxy.count(GET_OBJ)).isEqualTo(2);
  }

  @Test
  void stallMidBody_delaysOnlyItsOwnConnection() throws Exception {
    proxy.inject(GET_OBJ, new FaultProxy.Fault.Stall(Duration.ofMillis(1500), 50_000), 1);
    long t0 = System.nanoTime();
    CompletableFuture<byte[]> slow = CompletableFuture.supplyAsync(
        () -> s3.getObjectAsBytes(g -> g.bucket("bkt").key("obj")).asByteArray());
    Thread.sleep(300);
    // Meanwhile another connection is served at once.
    assertThat(s3.headObject(h -> h.bucket("bkt").key("obj")).contentLength()).isEqualTo(DATA.length);
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofMillis(1400));
    assertThat(slow.get()).isEqualTo(DATA);
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isGreaterThanOrEqualTo(Duration.ofMillis(1500));
    assertThat(proxy.count(GET_OBJ)).isEqualTo(1);
  }
}
