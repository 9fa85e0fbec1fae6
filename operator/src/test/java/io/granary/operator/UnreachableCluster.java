package io.granary.operator;

import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.Node;
import io.granary.operator.clusterapi.ClusterApi;
import io.granary.operator.clusterapi.ClusterLocator;
import io.granary.operator.clusterapi.HttpClusterApi;
import io.granary.operator.customresource.GranaryCluster;
import io.granary.common.s3.auth.Credentials;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.http.HttpClient;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A cluster whose proxies do not answer yet (a loopback port nobody listens on), as right after a create: the real
 * HTTP client, refused connections.
 */
public final class UnreachableCluster implements ClusterLocator {
  private final HttpClient http = HttpClient.newHttpClient();
  private final int port;

  public UnreachableCluster() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public ClusterApi api(GranaryCluster cluster, Optional<Credentials> credentials) {
    return new HttpClusterApi(http, "http://127.0.0.1:" + port, credentials);
  }

  @Override
  public Optional<Node> target(ClusterMap map, GranaryCluster cluster, int ordinal) {
    return Optional.empty();
  }

  @Override
  public OptionalInt proxyOrdinal(GranaryCluster cluster, Node proxy) {
    return OptionalInt.empty();
  }
}
