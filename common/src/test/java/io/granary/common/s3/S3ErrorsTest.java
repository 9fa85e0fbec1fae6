package io.granary.common.s3;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class S3ErrorsTest {

  @Test
  void resource_isThePathAsClientsNamedIt_withoutTheS3Mount() {
    assertThat(S3Errors.resource("/s3/photos/a/b.jpg")).isEqualTo("/photos/a/b.jpg");
    assertThat(S3Errors.resource("/photos/a/b.jpg")).isEqualTo("/photos/a/b.jpg");
    assertThat(S3Errors.resource("/s3/")).isEqualTo("/");
    assertThat(S3Errors.resource("/s3")).isEqualTo("/");
    assertThat(S3Errors.resource("/s3x/k")).isEqualTo("/s3x/k");
  }
}
