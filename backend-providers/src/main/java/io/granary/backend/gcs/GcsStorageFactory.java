package io.granary.backend.gcs;

import com.google.api.client.http.apache.v2.ApacheHttpTransport;
import com.google.api.gax.retrying.RetrySettings;
import com.google.auth.oauth2.GoogleCredentials;
import com.google.auth.oauth2.ServiceAccountCredentials;
import com.google.cloud.NoCredentials;
import com.google.cloud.http.HttpTransportOptions;
import com.google.cloud.storage.HttpStorageOptions;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageOptions;
import com.google.cloud.storage.StorageRetryStrategy;
import io.granary.backend.BackendConfig;
import io.granary.backend.BackendException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.time.Duration;

/** Builds the HTTP (JSON API) {@link Storage} client a {@link BackendConfig} describes. */
final class GcsStorageFactory {
  /** Project id when none is known: object operations do not use it, only bucket creation and listing do. */
  static final String FALLBACK_PROJECT = "granary";

  private GcsStorageFactory() {}

  static Storage create(BackendConfig config) throws BackendException {
    HttpStorageOptions.Builder options = StorageOptions.http()
        .setTransportOptions(transport(config))
        .setRetrySettings(retrySettings(config))
        // Uniform: also retry writes without preconditions. A write-through PUT repeats the same bytes, so
        // repeating it is harmless, and deletes of absent keys succeed anyway.
        .setStorageRetryStrategy(StorageRetryStrategy.getUniformStorageRetryStrategy());
    if (config.endpoint() != null) {
      options.setHost(trimSlash(config.endpoint().toString()));
    }
    String project = System.getenv("GOOGLE_CLOUD_PROJECT");
    if (config.anonymous()) {
      options.setCredentials(NoCredentials.getInstance());
    } else if (config.credentialsFile() != null) {
      GoogleCredentials credentials = readCredentials(config);
      options.setCredentials(credentials);
      if (credentials instanceof ServiceAccountCredentials sa && sa.getProjectId() != null) {
        project = sa.getProjectId();
      }
    }
    // Never let the library guess the project: that probes the metadata server, slow or hanging off GCP.
    options.setProjectId(project == null || project.isBlank() ? FALLBACK_PROJECT : project);
    return options.build().getService();
  }

  private static GoogleCredentials readCredentials(BackendConfig config) throws BackendException {
    try (InputStream in = Files.newInputStream(config.credentialsFile())) {
      return GoogleCredentials.fromStream(in);
    } catch (IOException | RuntimeException e) {
      // The parser's messages can quote the key file; name only the path.
      throw new BackendException(BackendException.Kind.OTHER, 0,
          "credentials file " + config.credentialsFile() + " is not a usable Google service-account key");
    }
  }

  /** Pooled Apache transport, so {@code maxConnections} bounds sockets as it does for S3. */
  private static HttpTransportOptions transport(BackendConfig config) {
    ApacheHttpTransport http = new ApacheHttpTransport(ApacheHttpTransport.newDefaultHttpClientBuilder()
        .setMaxConnTotal(config.maxConnections())
        .setMaxConnPerRoute(config.maxConnections())
        .build());
    return HttpTransportOptions.newBuilder()
        .setHttpTransportFactory(() -> http)
        .setConnectTimeout(millis(config.connectTimeout()))
        .setReadTimeout(millis(config.readTimeout()))
        .build();
  }

  @SuppressWarnings("deprecation") // setJittered: jitter is the default now; kept explicit for older gax
  private static RetrySettings retrySettings(BackendConfig config) {
    Duration maxDelay = Duration.ofSeconds(5);
    // Bounds the whole retried call: every attempt may spend a connect and a read timeout plus the backoff.
    Duration perAttempt = config.connectTimeout().plus(config.readTimeout()).plus(maxDelay);
    return RetrySettings.newBuilder()
        .setMaxAttempts(config.maxAttempts())
        .setInitialRetryDelayDuration(Duration.ofMillis(100))
        .setRetryDelayMultiplier(2.0)
        .setMaxRetryDelayDuration(maxDelay)
        .setTotalTimeoutDuration(perAttempt.multipliedBy(config.maxAttempts()))
        .setJittered(true)
        .build();
  }

  private static int millis(Duration d) {
    return (int) Math.min(Integer.MAX_VALUE, d.toMillis());
  }

  private static String trimSlash(String s) {
    return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
  }
}
