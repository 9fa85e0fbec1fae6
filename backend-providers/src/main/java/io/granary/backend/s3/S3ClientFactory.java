package io.granary.backend.s3;

import io.granary.backend.BackendConfig;
import io.granary.backend.BackendException;
import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.ProfileCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.profiles.ProfileFile;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Builds the SDK pieces an {@link S3Backend} is made of: the HTTP client (one connection pool, shared by the
 * {@link S3Client} and the backend's {@link SignedGet}s), the credentials provider and the sync {@link S3Client}.
 */
final class S3ClientFactory {
  static final String DEFAULT_REGION = "us-east-1";

  private S3ClientFactory() {}

  static Region region(BackendConfig config) {
    return Region.of(config.region() == null ? DEFAULT_REGION : config.region());
  }

  // The Apache 4 client is deprecated in favour of apache5-client; it is the one this module is specified on.
  @SuppressWarnings("deprecation")
  static SdkHttpClient http(BackendConfig config) {
    return ApacheHttpClient.builder()
        .socketTimeout(config.readTimeout())
        .connectionTimeout(config.connectTimeout())
        .maxConnections(config.maxConnections())
        .build();
  }

  /** The client for everything but object GETs; it does not own {@code http} (close that separately). */
  static S3Client client(BackendConfig config, SdkHttpClient http, AwsCredentialsProvider credentials) {
    var builder = S3Client.builder()
        .httpClient(http)
        .region(region(config))
        .credentialsProvider(credentials)
        .forcePathStyle(config.pathStyle())
        // Granary verifies content itself, and S3-compatible servers may reject the SDK's default flexible
        // checksums (aws-chunked trailers); send and check them only when an operation requires it.
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
        // Standard mode retries 5xx, 429/throttling and I/O errors with jittered exponential backoff.
        .overrideConfiguration(o -> o.retryStrategy(
            AwsRetryStrategy.standardRetryStrategy().toBuilder().maxAttempts(config.maxAttempts()).build()));
    if (config.endpoint() != null) {
      builder.endpointOverride(config.endpoint());
    }
    return builder.build();
  }

  static AwsCredentialsProvider credentials(BackendConfig config) throws BackendException {
    if (config.anonymous()) {
      return AnonymousCredentialsProvider.create();
    }
    if (config.credentialsFile() == null) {
      return DefaultCredentialsProvider.builder().build();
    }
    try {
      ProfileFile file = ProfileFile.builder()
          .content(config.credentialsFile())
          .type(ProfileFile.Type.CREDENTIALS)
          .build();
      String profile = config.profile() == null ? "default" : config.profile();
      if (file.profile(profile).isEmpty()) {
        throw new BackendException(BackendException.Kind.OTHER, 0,
            "credentials file " + config.credentialsFile() + " has no profile '" + profile + "'");
      }
      return ProfileCredentialsProvider.builder().profileFile(file).profileName(profile).build();
    } catch (RuntimeException e) {
      // The parser's messages may quote file lines; report only the path.
      throw new BackendException(BackendException.Kind.OTHER, 0,
          "credentials file " + config.credentialsFile() + " cannot be parsed as an AWS credentials file");
    }
  }
}
