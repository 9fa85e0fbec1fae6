package io.granary.backend;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.clustermap.bucket.Provider;
import java.net.URI;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class BackendConfigTest {

  @ParameterizedTest
  @ValueSource(strings = {"http://127.0.0.1:9000", "http://localhost:9000", "https://LOCALHOST", "http://[::1]:9000",
      "http://10.0.0.7"})
  void anS3EndpointThatNamesNoDomain_isAddressedPathStyle(String endpoint) {
    assertThat(BackendConfig.of(Provider.AWS, URI.create(endpoint), "us-east-1", false, null, true).pathStyle())
        .isTrue();
  }

  @Test
  void aDomainEndpoint_keepsTheChoice() {
    URI aws = URI.create("https://s3.us-east-1.amazonaws.com");
    assertThat(BackendConfig.of(Provider.AWS, aws, "us-east-1", false, null, true).pathStyle()).isFalse();
    assertThat(BackendConfig.of(Provider.AWS, aws, "us-east-1", true, null, true).pathStyle()).isTrue();
    assertThat(BackendConfig.of(Provider.AWS, null, "us-east-1", false, null, true).pathStyle()).isFalse();
  }
}
