package io.granary.operator.reconciler;

import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.Node;
import io.granary.clustermap.NodeState;
import io.granary.operator.clusterapi.ClusterApi;
import io.granary.operator.clusterapi.ClusterApiException;
import io.granary.operator.clusterapi.ClusterLocator;
import io.granary.operator.customresource.GranaryCluster;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scaling proxies down. Proxies hold no data, so their StatefulSet shrinks at once; what is left is the cluster map,
 * which would list the removed proxies as offline for ever. A proxy of a pod ordinal at or above the spec's replicas
 * leaves the map (decommissioned, which for a proxy is immediate and lets the same ordinal join again later) once
 * health checks have found it offline: while its pod still terminates it may be finishing requests, and a proxy
 * removed while it runs would only register again. The primary is never removed: when its pod goes, the Lease
 * passes to another proxy first, and the old primary is removed as any other.
 */
final class ProxyScaling {
  private static final Logger log = LoggerFactory.getLogger(ProxyScaling.class);

  /**
   * What this pass saw.
   *
   * @param removed proxies it took out of the map
   * @param waiting proxies of removed pods still in the map (not offline yet, or the primary), with why
   */
  record Step(List<String> removed, List<String> waiting) {
    boolean pending() {
      return !waiting.isEmpty();
    }
  }

  private final ClusterLocator locator;

  ProxyScaling(ClusterLocator locator) {
    this.locator = locator;
  }

  /** Removes the offline proxies of pods beyond the spec's replicas; nothing when the map is unknown. */
  Step step(GranaryCluster c, ClusterMap map, ClusterApi api) {
    List<String> removed = new ArrayList<>();
    List<String> waiting = new ArrayList<>();
    if (map == null || api == null) {
      return new Step(removed, waiting);
    }
    int replicas = c.getSpec().proxy.replicas;
    for (Node p : map.proxies().values()) {
      OptionalInt ordinal = locator.proxyOrdinal(c, p);
      if (ordinal.isEmpty() || ordinal.getAsInt() < replicas) {
        continue;
      }
      if (p.id().equals(map.primary())) {
        waiting.add(p.id() + " (the primary; another proxy takes over when its pod stops)");
      } else if (p.state() != NodeState.OFFLINE) {
        waiting.add(p.id() + " (its pod is stopping)");
      } else {
        try {
          api.setState(p.id(), "decommissioned");
          removed.add(p.id());
          log.info("event=proxy-removed cluster={} node={} ordinal={} proxies={}", TargetScaling.key(c), p.id(),
              ordinal.getAsInt(), replicas);
        } catch (ClusterApiException e) {
          waiting.add(p.id() + " (the cluster refused to remove it: " + e.getMessage() + ")");
        }
      }
    }
    return new Step(removed, waiting);
  }
}
