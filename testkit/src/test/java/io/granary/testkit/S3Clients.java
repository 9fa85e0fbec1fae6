package io.granary.testkit;

import java.net.URI;
import java.time.Duration;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.retry.RetryMode;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/** The real aws-sdk-java-v2 S3 client (sync, Apache HTTP) pointed at a loopback endpoint. */
final class S3Clients {
  private S3Clients() {
  }

  @SuppressWarnings("deprecation") // ApacheHttpClient (4.x) is deprecated in 2.56 but is the client under test
  static S3Client s3(URI endpoint) {
    return S3Client.builder()
        .endpointOverride(endpoint)
        .region(Region.US_EAST_1)
        .forcePathStyle(true)
        .credentialsProvider(StaticCredentialsProvider.create(
            AwsBasicCredentials.create(S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY)))
        // Checksums only when required, so a corrupted body reaches the test instead of failing in the SDK.
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
        .overrideConfiguration(c -> c.retryStrategy(RetryMode.STANDARD).apiCallAttemptTimeout(Duration.ofSeconds(5)))
        .httpClientBuilder(ApacheHttpClient.builder().socketTimeout(Duration.ofSeconds(3)))
        .build();
  }
}
