package io.granary.operator.resources;

import io.granary.operator.customresource.GranaryCluster;
import java.util.OptionalInt;

/** Names of everything a cluster owns, and the DNS names its pods reach each other by. */
public final class Names {
  private Names() {
  }

  public static String proxies(GranaryCluster c) {
    return c.getMetadata().getName() + "-proxy";
  }

  public static String targets(GranaryCluster c) {
    return c.getMetadata().getName() + "-target";
  }

  public static String clientService(GranaryCluster c) {
    return c.getMetadata().getName() + "-s3";
  }

  public static String configMap(GranaryCluster c) {
    return c.getMetadata().getName() + "-config";
  }

  public static String clusterSecret(GranaryCluster c) {
    return c.getMetadata().getName() + "-cluster";
  }

  /** The ServiceAccount, Role and RoleBinding of the nodes. */
  public static String nodeAccount(GranaryCluster c) {
    return c.getMetadata().getName() + "-node";
  }

  /** The Lease whose holder is the primary proxy; its metadata ConfigMap is {@code NAME-primary-metadata}. */
  public static String lease(GranaryCluster c) {
    return c.getMetadata().getName() + "-primary";
  }

  /**
   * The proxies through their headless Service: what the operator's cluster API client calls, and where targets
   * join (any proxy forwards a join to the primary).
   */
  public static String proxiesUrl(GranaryCluster c) {
    return "http://" + proxies(c) + "." + c.getMetadata().getNamespace() + ".svc:" + c.getSpec().proxy.port;
  }

  /** The host name target pod {@code ordinal} advertises: {@code NAME-target-I.NAME-target.NS.svc}. */
  public static String targetHost(GranaryCluster c, int ordinal) {
    return targets(c) + "-" + ordinal + "." + targets(c) + "." + c.getMetadata().getNamespace() + ".svc";
  }

  /** The ordinal of proxy pod {@code podName} ({@code NAME-proxy-I}, also the proxy's id), or empty. */
  public static OptionalInt proxyOrdinal(GranaryCluster c, String podName) {
    String prefix = proxies(c) + "-";
    if (podName == null || !podName.startsWith(prefix) || podName.length() == prefix.length()
        || podName.length() - prefix.length() > 9) {
      return OptionalInt.empty();
    }
    String digits = podName.substring(prefix.length());
    for (int i = 0; i < digits.length(); i++) {
      if (digits.charAt(i) < '0' || digits.charAt(i) > '9') {
        return OptionalInt.empty();
      }
    }
    return OptionalInt.of(Integer.parseInt(digits));
  }

  /** The S3 and native API endpoint inside the Kubernetes cluster. */
  public static String endpoint(GranaryCluster c) {
    return "http://" + clientService(c) + "." + c.getMetadata().getNamespace() + ".svc:" + c.getSpec().s3Service.port;
  }
}
