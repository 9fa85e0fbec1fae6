package io.granary.backend;

import io.granary.clustermap.bucket.Provider;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * How to reach one remote bucket's store. Secrets are never held here, only where to find them.
 *
 * @param provider {@link Provider#AWS} (any S3-compatible endpoint) or {@link Provider#GCP}
 * @param endpoint the store's base URL, or null for the provider's public endpoint
 * @param region S3 signing region (null: us-east-1); ignored for GCS
 * @param pathStyle S3 path-style addressing ({@code endpoint/bucket/key}); ignored for GCS; always on for an S3
 *     endpoint whose host is an IP address or {@code localhost}, where virtual-hosted names cannot resolve
 * @param credentialsFile S3: an AWS shared-credentials file (profile {@code default} or {@code profile});
 *     GCS: a service-account JSON key. Null: the provider's default chain (environment variables, instance
 *     metadata) unless {@code anonymous}
 * @param profile the profile to read from an S3 credentials file, or null for {@code default}
 * @param anonymous send unsigned requests (public buckets, emulators)
 * @param connectTimeout connection timeout
 * @param readTimeout the longest silence tolerated while waiting for an answer or for body bytes
 * @param maxAttempts attempts per request, including the first, for transient failures
 * @param maxConnections connection pool size
 */
public record BackendConfig(Provider provider, URI endpoint, String region, boolean pathStyle, Path credentialsFile,
    String profile, boolean anonymous, Duration connectTimeout, Duration readTimeout, int maxAttempts,
    int maxConnections) {
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
  public static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(30);
  public static final int DEFAULT_MAX_ATTEMPTS = 4;
  public static final int DEFAULT_MAX_CONNECTIONS = 64;

  public BackendConfig {
    Objects.requireNonNull(provider, "provider");
    if (provider == Provider.AIS) {
      throw new IllegalArgumentException("ais buckets have no backend");
    }
    connectTimeout = connectTimeout == null ? DEFAULT_CONNECT_TIMEOUT : connectTimeout;
    readTimeout = readTimeout == null ? DEFAULT_READ_TIMEOUT : readTimeout;
    maxAttempts = maxAttempts <= 0 ? DEFAULT_MAX_ATTEMPTS : maxAttempts;
    maxConnections = maxConnections <= 0 ? DEFAULT_MAX_CONNECTIONS : maxConnections;
    // bucket.127.0.0.1 or bucket.localhost names no host: such an endpoint can only be addressed path-style.
    pathStyle = pathStyle || provider == Provider.AWS && endpoint != null && !virtualHostable(endpoint);
  }

  /** Whether a bucket can be a sub-domain of {@code endpoint}'s host (not an IP address, not localhost). */
  static boolean virtualHostable(URI endpoint) {
    String host = endpoint.getHost();
    if (host == null || host.equalsIgnoreCase("localhost") || host.startsWith("[") || host.contains(":")) {
      return false;
    }
    return !host.matches("\\d{1,3}(\\.\\d{1,3}){3}");
  }

  /** A config with default timeouts, retries and pool size. */
  public static BackendConfig of(Provider provider, URI endpoint, String region, boolean pathStyle,
      Path credentialsFile, boolean anonymous) {
    return new BackendConfig(provider, endpoint, region, pathStyle, credentialsFile, null, anonymous, null, null, 0, 0);
  }
}
