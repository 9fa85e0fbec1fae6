package io.granary.target;

import io.granary.common.http.HttpLimits;
import io.granary.common.s3.auth.CredentialStore;
import io.granary.target.rebalance.RebalanceConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * How to run one target.
 *
 * @param id node id; null to use the one persisted in the mountpaths or generate one
 * @param host address to bind
 * @param port port to bind (0 for any)
 * @param publicUrl URL clients and peers use to reach this target; null for http://host:port
 * @param mountpaths local directories (one per disk) holding objects and metadata
 * @param primaryUrl URL of the primary proxy to register with
 * @param weight placement weight (relative capacity), 1 by default
 * @param reserveBytes free space each mountpath keeps; PUTs that would eat into it get 507
 * @param ioThreads event loops serving HTTP
 * @param diskThreads threads for blocking disk work (fsync, RocksDB writes, scans)
 * @param http the HTTP listener's timeouts and connection cap
 * @param rejoinCheck how often to check this target is still in the cluster map
 * @param multipartTtl multipart uploads older than this are aborted (abandoned uploads must not hold disk forever)
 * @param clusterSecret the cluster secret; when set, the target serves only requests signed with it (proxies
 *     and the primary sign theirs) and signs its own; null runs without intra-cluster authentication
 * @param cache cold GET and space settings for remote buckets
 * @param rebalance how this target moves objects to others
 * @param s3Keys the S3 access keys clients may sign object reads sent straight to this target with (the proxy's);
 *     empty: such reads are refused, and every request must come signed by a proxy
 */
public record TargetConfig(String id, String host, int port, String publicUrl, List<Path> mountpaths,
    String primaryUrl, double weight, long reserveBytes, int ioThreads, int diskThreads, HttpLimits http,
    Duration rejoinCheck, Duration multipartTtl, String clusterSecret, CacheConfig cache, RebalanceConfig rebalance,
    CredentialStore s3Keys) {

  /** A target that serves no S3 reads of its own. */
  public TargetConfig(String id, String host, int port, String publicUrl, List<Path> mountpaths, String primaryUrl,
      double weight, long reserveBytes, int ioThreads, int diskThreads, HttpLimits http, Duration rejoinCheck,
      Duration multipartTtl, String clusterSecret, CacheConfig cache, RebalanceConfig rebalance) {
    this(id, host, port, publicUrl, mountpaths, primaryUrl, weight, reserveBytes, ioThreads, diskThreads, http,
        rejoinCheck, multipartTtl, clusterSecret, cache, rebalance, null);
  }

  /** A target with the default rebalance settings. */
  public TargetConfig(String id, String host, int port, String publicUrl, List<Path> mountpaths, String primaryUrl,
      double weight, long reserveBytes, int ioThreads, int diskThreads, HttpLimits http, Duration rejoinCheck,
      Duration multipartTtl, String clusterSecret, CacheConfig cache) {
    this(id, host, port, publicUrl, mountpaths, primaryUrl, weight, reserveBytes, ioThreads, diskThreads, http,
        rejoinCheck, multipartTtl, clusterSecret, cache, null);
  }

  public TargetConfig {
    rebalance = rebalance == null ? RebalanceConfig.DEFAULTS : rebalance;
    s3Keys = s3Keys == null ? CredentialStore.of(List.of()) : s3Keys;
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(primaryUrl, "primaryUrl");
    Objects.requireNonNull(http, "http");
    mountpaths = List.copyOf(mountpaths);
    cache = cache == null ? CacheConfig.DEFAULTS : cache;
    if (!(weight > 0) || Double.isInfinite(weight)) {
      throw new IllegalArgumentException("--weight must be a positive number, got " + weight);
    }
    if (mountpaths.isEmpty()) {
      throw new IllegalArgumentException("a target needs at least one mountpath");
    }
    if (mountpaths.stream().map(p -> p.toAbsolutePath().normalize()).distinct().count() != mountpaths.size()) {
      throw new IllegalArgumentException("mountpaths must be distinct: " + mountpaths);
    }
  }
}
