package io.granary.target.rebalance;

import io.granary.common.api.GranaryHeaders;
import io.granary.common.http.HttpExchange;
import io.granary.common.membership.ClusterMetadataHolder;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lets a request routed by a newer cluster map than this target holds wait for that map. The primary pushes every
 * map to every node, so a proxy (or a peer) may route by a new placement a moment before a target knows it; and a
 * target that just joined may receive requests before the answer to its own registration. Requests name the version
 * they were routed by: the {@code granary-map-version} header, or the {@code granary-map} query parameter on the
 * redirect URLs proxies hand to clients.
 */
final class MapCatchUp {
  private static final Logger log = LoggerFactory.getLogger(MapCatchUp.class);
  /** The longest a request waits; then it goes on with the map this target holds. */
  static final Duration MAP_WAIT = Duration.ofSeconds(3);

  private final String self;
  private final ClusterMetadataHolder cluster;

  MapCatchUp(String self, ClusterMetadataHolder cluster) {
    this.self = self;
    this.cluster = cluster;
  }

  /** Completes (never exceptionally) once this target holds the map {@code ex} names, or after {@link #MAP_WAIT}. */
  CompletableFuture<Void> mapOf(HttpExchange ex) {
    long wanted = requestedVersion(ex);
    long have = cluster.snapshot().map(s -> s.map().version()).orElse(0L);
    if (wanted <= have) {
      return CompletableFuture.completedFuture(null);
    }
    return cluster.whenMapAtLeast(wanted).orTimeout(MAP_WAIT.toMillis(), TimeUnit.MILLISECONDS)
        .handle((s, err) -> {
          if (err != null) {
            log.warn("node={} request routed by map v{} but this target holds v{} after {} ms", self, wanted,
                cluster.snapshot().map(x -> x.map().version()).orElse(0L), MAP_WAIT.toMillis());
          }
          return null;
        });
  }

  private static long requestedVersion(HttpExchange ex) {
    String v = ex.header(GranaryHeaders.MAP_VERSION);
    if (v == null) {
      v = ex.queryParam(GranaryHeaders.MAP_VERSION_PARAM);
    }
    try {
      return v == null ? 0 : Long.parseLong(v.trim());
    } catch (NumberFormatException e) {
      return 0; // not ours to judge: the request goes on as if it named no version
    }
  }
}
