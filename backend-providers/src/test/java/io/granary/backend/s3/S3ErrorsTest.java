package io.granary.backend.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.backend.BackendException;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.exception.SdkClientException;

class S3ErrorsTest {

  @Test
  void noCredentialsAnywhere_isOneLineSayingWhatToGive_notTheSdksProviderChain() {
    SdkClientException chain = SdkClientException.create("Unable to load credentials from any of the providers in "
        + "the chain AwsCredentialsProviderChain(credentialsProviders=[SystemPropertyCredentialsProvider(), "
        + "EnvironmentVariableCredentialsProvider(), ...]) : [SystemPropertyCredentialsProvider(): Unable to load "
        + "credentials from system settings.\nEnvironmentVariableCredentialsProvider(): ...]");

    BackendException b = S3Errors.map("list", "train", null, chain);

    assertThat(b.kind()).isEqualTo(BackendException.Kind.ACCESS_DENIED);
    assertThat(b.getMessage()).startsWith("list s3://train: no AWS credentials found").contains("--credentials-file")
        .doesNotContain("\n").doesNotContain("ProviderChain");
  }

  @Test
  void otherClientFailures_areUnavailable() {
    assertThat(S3Errors.map("get", "b", "k", SdkClientException.create("Connection refused")).kind())
        .isEqualTo(BackendException.Kind.UNAVAILABLE);
  }
}
