package io.granary.operator.clusterapi;

import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.Node;
import io.granary.operator.customresource.GranaryCluster;
import io.granary.operator.resources.Names;
import io.granary.common.s3.auth.Credentials;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The operator running in the Kubernetes cluster: the API through the proxies' headless Service, and a target pod
 * found by the host name it advertises ({@code NAME-target-I.NAME-target.NS.svc}).
 */
public final class InClusterLocator implements ClusterLocator {
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @Override
  public ClusterApi api(GranaryCluster cluster, Optional<Credentials> credentials) {
    return new HttpClusterApi(http, Names.proxiesUrl(cluster), credentials);
  }

  @Override
  public Optional<Node> target(ClusterMap map, GranaryCluster cluster, int ordinal) {
    String host = Names.targetHost(cluster, ordinal);
    return map.targets().values().stream().filter(n -> host.equals(hostOf(n.url()))).findFirst();
  }

  /** Proxies run with {@code --id $(POD_NAME)}: {@code NAME-proxy-I}. */
  @Override
  public OptionalInt proxyOrdinal(GranaryCluster cluster, Node proxy) {
    return Names.proxyOrdinal(cluster, proxy.id());
  }

  private static String hostOf(String url) {
    try {
      return URI.create(url).getHost();
    } catch (IllegalArgumentException e) {
      return null;
    }
  }
}
