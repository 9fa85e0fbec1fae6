package io.granary.it.operator;

import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.Node;
import io.granary.it.support.TestCluster;
import io.granary.operator.clusterapi.ClusterApi;
import io.granary.operator.clusterapi.ClusterLocator;
import io.granary.operator.clusterapi.HttpClusterApi;
import io.granary.operator.customresource.GranaryCluster;
import io.granary.common.s3.auth.Credentials;
import java.net.http.HttpClient;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The operator's view of a local cluster the test runs as its "pods": the proxy's loopback URL instead of the
 * headless Service, and target pod ordinal I played by local target t(I+1) (and proxy pod I by p(I+1)) instead of a DNS name. The client is the
 * operator's own.
 */
final class LocalClusterLocator implements ClusterLocator {
  private final HttpClient http = HttpClient.newHttpClient();
  private final TestCluster cluster;

  LocalClusterLocator(TestCluster cluster) {
    this.cluster = cluster;
  }

  @Override
  public ClusterApi api(GranaryCluster c, Optional<Credentials> credentials) {
    return new HttpClusterApi(http, cluster.endpoint(), credentials);
  }

  @Override
  public Optional<Node> target(ClusterMap map, GranaryCluster c, int ordinal) {
    return Optional.ofNullable(map.targets().get(localId(ordinal)));
  }

  /** Proxy pod ordinal I is played by local proxy p(I+1). */
  @Override
  public OptionalInt proxyOrdinal(GranaryCluster c, Node proxy) {
    String id = proxy.id();
    return id.matches("p[1-9][0-9]{0,3}") ? OptionalInt.of(Integer.parseInt(id.substring(1)) - 1)
        : OptionalInt.empty();
  }

  static String localId(int ordinal) {
    return "t" + (ordinal + 1);
  }
}
