package io.granary.target.metrics;

import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.metrics.NodeMetrics;
import io.granary.target.coldget.ColdStats;
import io.granary.target.space.Capacity;
import io.granary.target.space.SpaceManager;
import io.granary.target.space.SpaceStats;
import io.granary.target.storage.Mountpath;
import java.io.IOException;
import java.util.List;

/**
 * Registers a target's metrics (besides the request metrics every node has) as callbacks over the counters the
 * target already keeps: {@link ColdStats} (cold GETs), {@link SpaceStats} (LRU eviction), each mountpath's
 * {@link Capacity} and the cluster-map version. Names and their AIStore counterparts: docs/metrics.md.
 */
public final class TargetMetrics {
  private TargetMetrics() {}

  public static NodeMetrics register(NodeMetrics m, ClusterMetadataHolder holder, ColdStats cold,
      SpaceManager space, List<Mountpath> mountpaths) {
    m.clusterMap(holder);

    m.counter("cold_get_fetches", "Objects fetched from a remote backend and cached (AIStore remote_get_count)",
        cold::fetches);
    m.counter("cold_get_bytes", "Bytes fetched from remote backends and cached (AIStore remote_get_bytes_total)",
        cold::bytes);
    m.counter("cold_get_coalesced", "Cold GETs that joined a fetch already in flight", cold::coalesced);
    m.counter("cold_get_checksum_errors", "Fetches whose content did not match the remote checksum (AIStore "
        + "err_cksum_count)", cold::checksumErrors);
    m.counter("cold_get_failures", "Cold GET fetches that failed", cold::failures);
    m.counter("cold_get_revalidations", "Cached copies checked against the remote backend", cold::revalidations);
    m.counter("cold_get_version_changes", "Revalidations that found a new remote version (AIStore "
        + "remote_ver_change_count)", cold::versionChanges);

    SpaceStats s = space.stats();
    m.counter("eviction_runs", "LRU eviction runs finished", s::runs);
    m.counter("evicted_objects", "Objects evicted by LRU (AIStore lru_evict_count)", s::evictedObjects);
    m.counter("evicted_bytes", "Bytes evicted by LRU (AIStore lru_evict_bytes)", s::evictedBytes);
    m.counter("space_refusals", "Writes refused for lack of space (507)", s::refused);

    String[] mp = {"mountpath"};
    m.gauge("mountpath_used_bytes", "Bytes used on a mountpath", mp, cb -> {
      for (Mountpath p : mountpaths) {
        Capacity c = measure(space, p);
        if (c != null) {
          cb.call(c.usedBytes(), p.root().toString());
        }
      }
    });
    m.gauge("mountpath_capacity_bytes", "Capacity of a mountpath (the configured limit, or the file system size)",
        mp, cb -> {
          for (Mountpath p : mountpaths) {
            Capacity c = measure(space, p);
            if (c != null) {
              cb.call(c.capacityBytes(), p.root().toString());
            }
          }
        });
    return m;
  }

  /** The capacity of {@code p} (no I/O beyond a statvfs, see SpaceManager), or null when it cannot be measured. */
  private static Capacity measure(SpaceManager space, Mountpath p) {
    try {
      return space.capacity(p);
    } catch (IOException | RuntimeException e) {
      return null; // the space checker logs this; a scrape just leaves the series out
    }
  }
}
