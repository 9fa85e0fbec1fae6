package io.granary.proxy.k8s;

import io.granary.clustermap.Node;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * How a proxy takes part in the Lease election.
 *
 * @param name the Lease's name; the metadata ConfigMap is {@code <name>-metadata}
 * @param namespace the namespace of both; null for the one the Kubernetes client is configured with
 * @param leaseDuration how long a Lease not renewed keeps others from taking it: the longest a failover waits
 *     for a dead primary. The holder renews every fifth of it and gives up two thirds in
 */
public record LeaseSettings(String name, String namespace, Duration leaseDuration) {
  /** Where Kubernetes mounts the pod's namespace with its service-account token. */
  public static final Path SERVICE_ACCOUNT_NAMESPACE =
      Path.of("/var/run/secrets/kubernetes.io/serviceaccount/namespace");
  public static final Duration DEFAULT_LEASE_DURATION = Duration.ofSeconds(15);

  public LeaseSettings {
    Node.requireValidId(name); // a DNS label is stricter; the API server has the last word
    leaseDuration = leaseDuration == null ? DEFAULT_LEASE_DURATION : leaseDuration;
    if (leaseDuration.compareTo(Duration.ofSeconds(2)) < 0) {
      throw new IllegalArgumentException("the lease duration must be at least 2s, got " + leaseDuration);
    }
  }

  /**
   * Settings with {@code namespace}, else the pod's own namespace (from its service account), else null: the one
   * the Kubernetes client is configured with (KUBERNETES_NAMESPACE, kubeconfig).
   */
  public static LeaseSettings of(String name, String namespace, Duration leaseDuration) throws IOException {
    String ns = namespace;
    if (ns == null && Files.isReadable(SERVICE_ACCOUNT_NAMESPACE)) {
      ns = Files.readString(SERVICE_ACCOUNT_NAMESPACE, StandardCharsets.UTF_8).trim();
    }
    return new LeaseSettings(name, ns, leaseDuration);
  }

  /** The ConfigMap holding the cluster map, the bucket metadata and the primary's URL. */
  public String configMapName() {
    return name + "-metadata";
  }

  public Duration renewDeadline() {
    return leaseDuration.multipliedBy(2).dividedBy(3);
  }

  public Duration retryPeriod() {
    return leaseDuration.dividedBy(5);
  }
}
