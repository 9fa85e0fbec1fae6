package io.granary.backend.s3;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import org.junit.jupiter.api.Test;

class S3ObjectUrlsTest {
  @Test
  void pathStyle_putsTheBucketInThePath_onTheEndpoint() {
    S3ObjectUrls urls = new S3ObjectUrls(URI.create("http://127.0.0.1:9000"), "us-east-1", true);
    assertThat(urls.object("data", "train/shard-0001.tar"))
        .hasToString("http://127.0.0.1:9000/data/train/shard-0001.tar");
  }

  @Test
  void virtualHosted_putsTheBucketInTheHost_onAwsRegionalEndpointByDefault() {
    S3ObjectUrls urls = new S3ObjectUrls(null, "eu-west-1", false);
    assertThat(urls.object("imagenet", "a/b.jpg")).hasToString("https://imagenet.s3.eu-west-1.amazonaws.com/a/b.jpg");
  }

  @Test
  void bucketsThatCannotBeAHostLabel_fallBackToPathStyle() {
    S3ObjectUrls urls = new S3ObjectUrls(null, "us-east-1", false);
    assertThat(urls.object("my.dotted.bucket", "k")).hasToString("https://s3.us-east-1.amazonaws.com/my.dotted.bucket/k");
    assertThat(urls.object("Legacy_Bucket", "k")).hasToString("https://s3.us-east-1.amazonaws.com/Legacy_Bucket/k");
  }

  @Test
  void keys_areEncodedOnce_slashesAndDotSegmentsKept() {
    S3ObjectUrls urls = new S3ObjectUrls(URI.create("https://store.example:8443/s3/"), "r", true);
    URI u = urls.object("b", "dir//a b+c%/./ü~.bin");
    assertThat(u.getRawPath()).isEqualTo("/s3/b/dir//a%20b%2Bc%25/./%C3%BC~.bin");
    assertThat(u.getHost()).isEqualTo("store.example");
    assertThat(u.getPort()).isEqualTo(8443);
  }
}
