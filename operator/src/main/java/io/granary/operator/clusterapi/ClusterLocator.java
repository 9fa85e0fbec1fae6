package io.granary.operator.clusterapi;

import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.Node;
import io.granary.operator.customresource.GranaryCluster;
import io.granary.common.s3.auth.Credentials;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Where a GranaryCluster's API is and which cluster-map target a target pod is. In Kubernetes
 * ({@link InClusterLocator}) both follow from DNS names; a test that plays the kubelet with local processes gives
 * its own.
 */
public interface ClusterLocator {

  /** A client of the cluster's proxies, signing with {@code credentials} when given. */
  ClusterApi api(GranaryCluster cluster, Optional<Credentials> credentials);

  /**
   * The map's target that runs in target pod {@code ordinal}, or empty when the map has none (the pod never
   * joined, or its target left the map).
   */
  Optional<Node> target(ClusterMap map, GranaryCluster cluster, int ordinal);

  /**
   * The pod ordinal that proxy node {@code proxy} runs in, or empty when it is not one of this cluster's proxy pods
   * (a proxy the operator does not manage is never removed by it).
   */
  OptionalInt proxyOrdinal(GranaryCluster cluster, Node proxy);
}
