package io.granary.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Object;

/** S3ProxyServer with the real aws-sdk-java-v2 client: SigV4, aws-chunked PUT, GET, ranged GET, HEAD, ListV2. */
class S3ProxyServerTest {
  @TempDir
  Path dir;

  @Test
  void transientStore_servesTheS3ApiWithSigV4_andCloseKillsIt() throws Exception {
    S3ProxyServer server = S3ProxyServer.start(dir);
    try (server; S3Client s3 = S3Clients.s3(server.endpoint())) {
      byte[] data = GcsClients.random(200_000, 7);
      s3.createBucket(b -> b.bucket("bkt"));
      s3.putObject(p -> p.bucket("bkt").key("a/one"), RequestBody.fromBytes(data));
      s3.putObject(p -> p.bucket("bkt").key("a/two"), RequestBody.fromString("two"));

      assertThat(s3.getObjectAsBytes(g -> g.bucket("bkt").key("a/one")).asByteArray()).isEqualTo(data);
      assertThat(s3.getObjectAsBytes(g -> g.bucket("bkt").key("a/one").range("bytes=10-19")).asByteArray())
          .isEqualTo(java.util.Arrays.copyOfRange(data, 10, 20));
      assertThat(s3.headObject(h -> h.bucket("bkt").key("a/one")).contentLength()).isEqualTo(data.length);
      assertThat(s3.listObjectsV2(l -> l.bucket("bkt").prefix("a/")).contents()).extracting(S3Object::key)
          .containsExactly("a/one", "a/two");
      assertThatThrownBy(() -> s3.getObjectAsBytes(g -> g.bucket("bkt").key("missing")))
          .isInstanceOf(NoSuchKeyException.class);

      String creds = Files.readString(server.writeCredentialsFile(dir.resolve("aws/credentials")));
      assertThat(creds).contains("[default]", "aws_access_key_id = " + S3ProxyServer.ACCESS_KEY,
          "aws_secret_access_key = " + S3ProxyServer.SECRET_KEY);
    }
    assertThat(ProcessHandle.of(server.pid()).map(ProcessHandle::isAlive).orElse(false)).isFalse();
  }

  @Test
  void onDisk_keepsObjectsUnderWorkDirData() throws Exception {
    try (S3ProxyServer server = S3ProxyServer.startOnDisk(dir); S3Client s3 = S3Clients.s3(server.endpoint())) {
      s3.createBucket(b -> b.bucket("disk"));
      s3.putObject(p -> p.bucket("disk").key("k"), RequestBody.fromString("on disk"));
      assertThat(s3.getObjectAsBytes(g -> g.bucket("disk").key("k")).asUtf8String()).isEqualTo("on disk");
      assertThat(dir.resolve("data/disk")).isDirectory();
    }
  }

  @Test
  void missingJarProperty_failsNamingIt() {
    String saved = System.getProperty(S3ProxyServer.JAR_PROPERTY);
    System.clearProperty(S3ProxyServer.JAR_PROPERTY);
    try {
      assertThatThrownBy(() -> S3ProxyServer.start(dir)).hasMessageContaining("granary.s3proxy.jar");
      System.setProperty(S3ProxyServer.JAR_PROPERTY, dir.resolve("nope.jar").toString());
      assertThatThrownBy(() -> S3ProxyServer.start(dir)).hasMessageContaining("granary.s3proxy.jar")
          .hasMessageContaining("does not exist");
    } finally {
      if (saved != null) {
        System.setProperty(S3ProxyServer.JAR_PROPERTY, saved);
      }
    }
  }
}
