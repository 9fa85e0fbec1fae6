package io.granary.it.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.it.support.Content;
import io.granary.it.support.TestCluster;
import java.io.InputStream;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;

/**
 * A 2 GiB object PUT and GET with the S3 SDK through the proxy (stream-through: the proxy decodes the signed
 * aws-chunked upload and relays both ways) while every node runs with a 128 MiB heap and 128 MiB of direct
 * memory: neither proxy nor target ever holds the object. The test generates and hashes the bytes as they flow,
 * so it holds none either.
 */
class S3LargeObjectIT {
  private static final long SIZE = 2L << 30;
  private static final long SEED = 20261;
  private static final String BUCKET = "s3large";
  private static final String KEY = "dataset/shard-0000.tar";
  private static TestCluster cluster;
  private static S3Client s3;

  @BeforeAll
  static void start() throws Exception {
    cluster = TestCluster.start("s3large", 1, List.of("-Xmx128m", "-XX:MaxDirectMemorySize=128m"), List.of());
    s3 = S3Support.sync(cluster);
    s3.createBucket(b -> b.bucket(BUCKET));
  }

  @AfterAll
  static void stop() throws Exception {
    if (s3 != null) {
      s3.close();
    }
    if (cluster != null) {
      cluster.closeAndDeleteData();
    }
  }

  @Test
  void twoGibObject_putAndGetThroughTheProxy_withTheSdk_isByteExact_andNoNodeRunsOutOfMemory() throws Exception {
    String expected = S3Support.sha256(Content.stream(SEED, SIZE));

    s3.putObject(b -> b.bucket(BUCKET).key(KEY),
        RequestBody.fromContentProvider(() -> Content.stream(SEED, SIZE), SIZE, "application/octet-stream"));
    // The upload went as a signed aws-chunked body with a CRC32 trailer, which the proxy decoded on the way.
    assertThat(S3Support.sentHeader("PutObject", "x-amz-content-sha256")).startsWith("STREAMING-");

    HeadObjectResponse head = s3.headObject(b -> b.bucket(BUCKET).key(KEY));
    assertThat(head.contentLength()).isEqualTo(SIZE);
    assertThat(head.contentType()).isEqualTo("application/octet-stream");

    ResponseInputStream<GetObjectResponse> in = s3.getObject(b -> b.bucket(BUCKET).key(KEY),
        ResponseTransformer.toInputStream());
    assertThat(in.response().contentLength()).isEqualTo(SIZE);
    CountingStream counted = new CountingStream(in);
    assertThat(S3Support.sha256(counted)).isEqualTo(expected);
    assertThat(counted.count).isEqualTo(SIZE);

    // The last bytes, by range.
    byte[] tail = s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(KEY).range("bytes=" + (SIZE - 1000) + "-")).asByteArray();
    try (InputStream all = Content.stream(SEED, SIZE)) {
      all.skipNBytes(SIZE - 1000);
      assertThat(tail).isEqualTo(all.readAllBytes());
    }

    assertThat(cluster.local().process("p1").isAlive()).as("proxy survived with a 128 MiB heap").isTrue();
    assertThat(cluster.local().process("t1").isAlive()).as("target survived with a 128 MiB heap").isTrue();
  }

  /** Counts the bytes read through it. */
  private static final class CountingStream extends java.io.FilterInputStream {
    long count;

    CountingStream(InputStream in) {
      super(in);
    }

    @Override
    public int read() throws java.io.IOException {
      int b = super.read();
      if (b >= 0) {
        count++;
      }
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws java.io.IOException {
      int n = super.read(b, off, len);
      if (n > 0) {
        count += n;
      }
      return n;
    }
  }
}
