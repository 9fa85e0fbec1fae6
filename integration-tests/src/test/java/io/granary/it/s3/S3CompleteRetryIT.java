package io.granary.it.s3;

import static io.granary.it.s3.S3Support.assertS3Error;
import static io.granary.it.s3.S3Support.unquote;
import static org.assertj.core.api.Assertions.assertThat;

import io.granary.it.support.Content;
import io.granary.it.support.Http;
import io.granary.it.support.Resources;
import io.granary.it.support.TestCluster;
import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;

/**
 * A CompleteMultipartUpload retried after it succeeded (its answer lost on the way) is answered 200 with the same
 * ETag and changes nothing, as S3 does: also after the object was overwritten, and after the owning target
 * restarted (the completion is remembered in its RocksDB). A retry naming other parts is 400 InvalidPart.
 */
class S3CompleteRetryIT {
  private static final String BUCKET = "s3retry";
  private static final int MIB = 1 << 20;
  private static TestCluster cluster;
  private static S3Client s3;

  @BeforeAll
  static void start() throws Exception {
    cluster = TestCluster.start("s3retry", 2);
    s3 = S3Support.sync(cluster);
    s3.createBucket(b -> b.bucket(BUCKET));
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(s3, cluster);
  }

  /** Uploads a 5 MiB part and a small last part of {@code key}; returns the upload id and its part list. */
  private static Upload upload(String key, long seed) {
    String uploadId = s3.createMultipartUpload(b -> b.bucket(BUCKET).key(key)).uploadId();
    List<byte[]> bodies = List.of(Content.bytes(seed, 5 * MIB), Content.bytes(seed + 1, 1234));
    List<CompletedPart> parts = new ArrayList<>();
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    for (int i = 0; i < bodies.size(); i++) {
      int n = i + 1;
      String etag = s3.uploadPart(b -> b.bucket(BUCKET).key(key).uploadId(uploadId).partNumber(n),
          RequestBody.fromBytes(bodies.get(n - 1))).eTag();
      parts.add(CompletedPart.builder().partNumber(n).eTag(etag).build());
      all.writeBytes(bodies.get(i));
    }
    return new Upload(key, uploadId, parts, all.toByteArray());
  }

  private record Upload(String key, String uploadId, List<CompletedPart> parts, byte[] content) {
  }

  private static CompleteMultipartUploadResponse complete(Upload u, List<CompletedPart> parts) {
    return s3.completeMultipartUpload(b -> b.bucket(BUCKET).key(u.key()).uploadId(u.uploadId())
        .multipartUpload(m -> m.parts(parts)));
  }

  private static byte[] get(String key) {
    return s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asByteArray();
  }

  @Test
  void completeRetried_afterItSucceeded_is200WithTheSameEtag_andChangesNothing() {
    Upload u = upload("retry/same.bin", 10);
    CompleteMultipartUploadResponse first = complete(u, u.parts());
    HeadObjectResponse before = s3.headObject(b -> b.bucket(BUCKET).key(u.key()));

    CompleteMultipartUploadResponse again = complete(u, u.parts());

    assertThat(again.eTag()).isEqualTo(first.eTag());
    assertThat(unquote(again.eTag())).endsWith("-2");
    assertThat(again.key()).isEqualTo(u.key());
    HeadObjectResponse after = s3.headObject(b -> b.bucket(BUCKET).key(u.key()));
    assertThat(after.eTag()).isEqualTo(before.eTag());
    assertThat(after.lastModified()).isEqualTo(before.lastModified()); // not written again
    assertThat(get(u.key())).isEqualTo(u.content());
  }

  @Test
  void completeRetried_afterTheObjectWasOverwritten_is200WithTheFirstEtag_andKeepsTheNewObject() {
    Upload u = upload("retry/overwritten.bin", 20);
    CompleteMultipartUploadResponse first = complete(u, u.parts());
    byte[] newer = Content.bytes(21, 777);
    s3.putObject(b -> b.bucket(BUCKET).key(u.key()), RequestBody.fromBytes(newer));

    CompleteMultipartUploadResponse again = complete(u, u.parts());

    assertThat(again.eTag()).isEqualTo(first.eTag());
    assertThat(get(u.key())).isEqualTo(newer);
  }

  @Test
  void completeRetried_withAnotherPartList_isInvalidPart_andChangesNothing() {
    Upload u = upload("retry/other-parts.bin", 30);
    complete(u, u.parts());
    HeadObjectResponse before = s3.headObject(b -> b.bucket(BUCKET).key(u.key()));

    assertS3Error(() -> complete(u, u.parts().subList(0, 1)), 400, "InvalidPart");
    assertS3Error(() -> complete(u, List.of(u.parts().get(0), CompletedPart.builder().partNumber(2)
        .eTag("\"" + "0".repeat(32) + "\"").build())), 400, "InvalidPart");

    HeadObjectResponse after = s3.headObject(b -> b.bucket(BUCKET).key(u.key()));
    assertThat(after.eTag()).isEqualTo(before.eTag());
    assertThat(after.lastModified()).isEqualTo(before.lastModified());
    assertThat(get(u.key())).isEqualTo(u.content());
  }

  @Test
  void completeRetried_afterTheOwningTargetRestarted_is200WithTheSameEtag() throws Exception {
    Upload u = upload("retry/restart.bin", 40);
    CompleteMultipartUploadResponse first = complete(u, u.parts());
    String owner = cluster.owner(BUCKET, u.key()).id();

    cluster.local().kill(owner); // SIGKILL: only what was made durable survives
    cluster.local().restart(owner);
    Awaitility.await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
        .until(() -> Http.get(cluster.targetUrl(owner) + "/v1/health").status() == 200);
    cluster.local().awaitActiveTargets(2);

    // The proxy may still take the restarted target for offline for a moment (503): wait for the answer itself.
    CompleteMultipartUploadResponse again = Awaitility.await().atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200)).ignoreExceptions().until(() -> complete(u, u.parts()), r -> true);

    assertThat(again.eTag()).isEqualTo(first.eTag());
    assertThat(get(u.key())).isEqualTo(u.content());
  }

  @Test
  void completeOfAnUploadNeverStarted_isStillNoSuchUpload() {
    assertS3Error(() -> s3.completeMultipartUpload(b -> b.bucket(BUCKET).key("retry/never").uploadId("feedface")
        .multipartUpload(m -> m.parts(CompletedPart.builder().partNumber(1).eTag("\"" + "0".repeat(32) + "\"")
            .build()))), 404, "NoSuchUpload");
  }
}
