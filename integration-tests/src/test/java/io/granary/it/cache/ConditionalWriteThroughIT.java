package io.granary.it.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.granary.it.s3.S3Support;
import io.granary.it.support.Content;
import io.granary.it.support.Http;
import io.granary.it.support.Resources;
import io.granary.it.support.TestCluster;
import io.granary.testkit.S3ProxyServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Conditional writes to a remote (S3Proxy) bucket written through by a 2-target cluster: a failed precondition
 * answers 412 and writes neither the remote nor the cache; of racing create-only writers exactly one reaches the
 * remote, and remote and cache hold its bytes.
 */
class ConditionalWriteThroughIT {
  private static final String BUCKET = "remote-cond";
  private static Path work;
  private static S3ProxyServer s3proxy;
  private static TestCluster cluster;
  private static S3Client backend;
  private static S3Client s3;

  @BeforeAll
  static void start() throws Exception {
    work = Files.createTempDirectory("cond-write-through");
    s3proxy = S3ProxyServer.start(work.resolve("s3proxy"));
    backend = RemoteBuckets.backendClient(s3proxy);
    backend.createBucket(b -> b.bucket(BUCKET));
    cluster = TestCluster.start("cond-write-through", 2);
    Path creds = s3proxy.writeCredentialsFile(work.resolve("credentials"));
    Http.Reply r = RemoteBuckets.register(cluster, "aws", BUCKET, RemoteBuckets.s3Props(s3proxy.endpoint(), creds,
        "1h", false));
    assertThat(r.status()).as(r.bodyText()).isEqualTo(201);
    s3 = S3Support.sync(cluster);
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(s3, backend, cluster, s3proxy);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] remote(String key) {
    return backend.getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asByteArray();
  }

  private static byte[] cached(String key) {
    return s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asByteArray();
  }

  private static int status(Runnable call) {
    try {
      call.run();
      return 200;
    } catch (S3Exception e) {
      return e.statusCode();
    }
  }

  @Test
  void failedPreconditions_are412_andWriteNeitherTheRemoteNorTheCache() {
    String key = "put/exists";
    String etag = s3.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromBytes(bytes("original"))).eTag();

    S3Exception e = catchThrowableOfType(S3Exception.class, () -> s3.putObject(
        b -> b.bucket(BUCKET).key(key).ifNoneMatch("*"), RequestBody.fromBytes(bytes("intruder"))));
    assertThat(e.statusCode()).isEqualTo(412);
    assertThat(status(() -> s3.putObject(b -> b.bucket(BUCKET).key(key).ifMatch("\"0123456789abcdef0123456789abcdef\""),
        RequestBody.fromBytes(bytes("intruder"))))).isEqualTo(412);

    assertThat(remote(key)).isEqualTo(bytes("original"));
    assertThat(cached(key)).isEqualTo(bytes("original"));

    s3.putObject(b -> b.bucket(BUCKET).key(key).ifMatch(etag), RequestBody.fromBytes(bytes("successor")));
    assertThat(remote(key)).isEqualTo(bytes("successor"));
    assertThat(cached(key)).isEqualTo(bytes("successor"));
  }

  @Test
  void completeMultipartUpload_ifNoneMatch_onExistingKey_is412_andTheRemoteKeepsItsObject() {
    String key = "mpu/exists";
    s3.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromBytes(bytes("original")));
    String uploadId = s3.createMultipartUpload(b -> b.bucket(BUCKET).key(key)).uploadId();
    String e1 = s3.uploadPart(b -> b.bucket(BUCKET).key(key).uploadId(uploadId).partNumber(1),
        RequestBody.fromBytes(bytes("replacement"))).eTag();
    List<CompletedPart> parts = List.of(CompletedPart.builder().partNumber(1).eTag(e1).build());

    assertThat(status(() -> s3.completeMultipartUpload(b -> b.bucket(BUCKET).key(key).uploadId(uploadId)
        .ifNoneMatch("*").multipartUpload(m -> m.parts(parts))))).isEqualTo(412);

    assertThat(remote(key)).isEqualTo(bytes("original"));
    assertThat(cached(key)).isEqualTo(bytes("original"));
  }

  @Test
  void racingIfNoneMatchPuts_exactlyOneReachesTheRemote() throws Exception {
    String key = "race/new";
    int writers = 16;
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    try {
      CountDownLatch ready = new CountDownLatch(writers);
      CountDownLatch go = new CountDownLatch(1);
      List<Future<Integer>> results = new ArrayList<>();
      for (int i = 0; i < writers; i++) {
        byte[] body = Content.bytes(500 + i, 64 * 1024 + i);
        results.add(pool.submit(() -> {
          ready.countDown();
          go.await();
          return status(() -> s3.putObject(b -> b.bucket(BUCKET).key(key).ifNoneMatch("*"),
              RequestBody.fromBytes(body)));
        }));
      }
      ready.await();
      go.countDown();
      List<Integer> statuses = new ArrayList<>();
      for (Future<Integer> f : results) {
        statuses.add(f.get());
      }

      assertThat(statuses).filteredOn(s -> s == 200).hasSize(1);
      assertThat(statuses).filteredOn(s -> s != 200).containsOnly(412);
      int winner = statuses.indexOf(200);
      assertThat(remote(key)).isEqualTo(Content.bytes(500 + winner, 64 * 1024 + winner));
      assertThat(cached(key)).isEqualTo(Content.bytes(500 + winner, 64 * 1024 + winner));
    } finally {
      pool.shutdownNow();
    }
  }
}
