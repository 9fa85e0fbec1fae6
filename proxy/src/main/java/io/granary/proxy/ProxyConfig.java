package io.granary.proxy;

import io.granary.common.http.HttpLimits;
import io.granary.common.s3.auth.CredentialStore;
import io.granary.proxy.k8s.LeaseSettings;
import io.granary.proxy.rebalance.RetryPolicy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * How to run one proxy.
 *
 * @param id node id; null to use the persisted one or generate one
 * @param host address to bind
 * @param port port to bind (0 for any)
 * @param publicUrl URL clients and peers use to reach this proxy; null for http://host:port
 * @param dataDir where the proxy keeps its id and cluster metadata
 * @param primaryUrl URL of the primary to join; null makes this proxy the primary
 * @param ioThreads event loops serving HTTP
 * @param healthInterval how often the primary checks each node
 * @param offlineAfter how long a node may be silent before the primary marks it offline
 * @param http the HTTP listener's timeouts and connection cap
 * @param clusterSecret the cluster secret for signing requests to targets and checking joins and pushes; null
 *     runs without intra-cluster authentication
 * @param credentials S3 access keys clients sign requests with (SigV4)
 * @param anonymous serve unsigned requests (S3 and native) instead of answering 403 AccessDenied
 * @param nativeAuth require SigV4 on the native /v1/ API too (health and the cluster map stay open)
 * @param s3Redirect answer S3 object GET/HEAD with a 307 to a signed target URL instead of streaming through
 * @param rebalanceRetry when the primary retries a failed rebalance by itself
 * @param lease take part in the Kubernetes Lease election of the primary (then {@code primaryUrl} is ignored); null:
 *     the primary is fixed, as outside Kubernetes
 * @param upstreamHeadTimeout how long a relayed S3 request, once sent whole to its target, may wait for the target's
 *     answer head before the client gets 504 GatewayTimeout; null: {@link #DEFAULT_UPSTREAM_HEAD_TIMEOUT}
 */
public record ProxyConfig(String id, String host, int port, String publicUrl, Path dataDir, String primaryUrl,
    int ioThreads, Duration healthInterval, Duration offlineAfter, HttpLimits http, String clusterSecret,
    CredentialStore credentials, boolean anonymous, boolean nativeAuth, boolean s3Redirect,
    RetryPolicy rebalanceRetry, LeaseSettings lease, Duration upstreamHeadTimeout) {
  /** The default of {@code --upstream-head-timeout}; why this long: docs/http-api.md, "Timeouts". */
  public static final Duration DEFAULT_UPSTREAM_HEAD_TIMEOUT = Duration.ofHours(1);

  public ProxyConfig {
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(dataDir, "dataDir");
    Objects.requireNonNull(credentials, "credentials");
    Objects.requireNonNull(http, "http");
    rebalanceRetry = rebalanceRetry == null ? RetryPolicy.DEFAULTS : rebalanceRetry;
    upstreamHeadTimeout = upstreamHeadTimeout == null ? DEFAULT_UPSTREAM_HEAD_TIMEOUT : upstreamHeadTimeout;
    if (upstreamHeadTimeout.toMillis() <= 0) {
      throw new IllegalArgumentException("--upstream-head-timeout must be positive, got "
          + upstreamHeadTimeout.toMillis() + "ms");
    }
    if (credentials.size() == 0 && !anonymous) {
      throw new IllegalArgumentException("no access keys: give --access-key/--secret-key or --credentials-file, "
          + "or allow unsigned requests with --anonymous");
    }
  }

  /** A proxy with a fixed primary (no Lease election). */
  public ProxyConfig(String id, String host, int port, String publicUrl, Path dataDir, String primaryUrl,
      int ioThreads, Duration healthInterval, Duration offlineAfter, HttpLimits http, String clusterSecret,
      CredentialStore credentials, boolean anonymous, boolean nativeAuth, boolean s3Redirect,
      RetryPolicy rebalanceRetry) {
    this(id, host, port, publicUrl, dataDir, primaryUrl, ioThreads, healthInterval, offlineAfter, http, clusterSecret,
        credentials, anonymous, nativeAuth, s3Redirect, rebalanceRetry, null, null);
  }

  /** This configuration taking part in the Lease election {@code next} (null: none). */
  public ProxyConfig withLease(LeaseSettings next) {
    return new ProxyConfig(id, host, port, publicUrl, dataDir, primaryUrl, ioThreads, healthInterval, offlineAfter,
        http, clusterSecret, credentials, anonymous, nativeAuth, s3Redirect, rebalanceRetry, next, upstreamHeadTimeout);
  }

  /** This configuration with {@code timeout} as its upstream head timeout (null: the default). */
  public ProxyConfig withUpstreamHeadTimeout(Duration timeout) {
    return new ProxyConfig(id, host, port, publicUrl, dataDir, primaryUrl, ioThreads, healthInterval, offlineAfter,
        http, clusterSecret, credentials, anonymous, nativeAuth, s3Redirect, rebalanceRetry, lease, timeout);
  }
}
