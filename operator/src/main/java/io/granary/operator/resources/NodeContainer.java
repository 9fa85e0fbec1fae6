package io.granary.operator.resources;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.granary.operator.customresource.GranaryCluster;
import io.granary.operator.customresource.PodPlacement;
import java.util.ArrayList;
import java.util.List;

/**
 * The granary container of a node pod: the image, its port, the probes (liveness {@code /v1/health}, readiness
 * {@code /v1/health/ready}), the cluster secret and the config file, common to proxies and targets.
 */
final class NodeContainer {
  /** Where the ConfigMap's config file is mounted. */
  static final String CONFIG_DIR = "/etc/granary";
  static final String CONFIG_FILE = CONFIG_DIR + "/" + NodeConfigMap.FILE;

  private NodeContainer() {
  }

  static ContainerBuilder base(GranaryCluster c, Role role, int port, PodPlacement placement) {
    List<VolumeMount> mounts = new ArrayList<>();
    mounts.add(new VolumeMountBuilder().withName("config").withMountPath(CONFIG_DIR)
        .withReadOnly(true).build());
    return new ContainerBuilder()
        .withName("granary")
        .withImage(c.getSpec().image)
        .withImagePullPolicy(c.getSpec().imagePullPolicy)
        .addNewPort().withName("http").withContainerPort(port).withProtocol("TCP").endPort()
        .withEnv(env(c, role))
        .withVolumeMounts(mounts)
        .withResources(placement.resources)
        .withLivenessProbe(probe("/v1/health", port, 6))
        .withReadinessProbe(probe("/v1/health/ready", port, 1));
  }

  /** Every node's environment; the cluster secret comes from the Secret, never from the pod spec. */
  private static List<EnvVar> env(GranaryCluster c, Role role) {
    List<EnvVar> env = new ArrayList<>();
    env.add(fieldRef("POD_NAME", "metadata.name"));
    env.add(fieldRef("POD_NAMESPACE", "metadata.namespace"));
    env.add(new EnvVarBuilder().withName("GRANARY_CONFIG").withValue(CONFIG_FILE).build());
    env.add(new EnvVarBuilder().withName("GRANARY_CLUSTER_SECRET").withNewValueFrom().withNewSecretKeyRef()
        .withName(Names.clusterSecret(c)).withKey(ClusterSecret.KEY).endSecretKeyRef().endValueFrom().build());
    // The S3 key pair: proxies verify every S3 request with it, targets the reads clients send them directly
    if (c.getSpec().authSecret != null) {
      env.add(secretKey("GRANARY_ACCESS_KEY", c.getSpec().authSecret, AuthKeys.ACCESS_KEY));
      env.add(secretKey("GRANARY_SECRET_KEY", c.getSpec().authSecret, AuthKeys.SECRET_KEY));
    }
    return env;
  }

  private static EnvVar fieldRef(String name, String path) {
    return new EnvVarBuilder().withName(name).withNewValueFrom().withNewFieldRef().withFieldPath(path).endFieldRef()
        .endValueFrom().build();
  }

  private static EnvVar secretKey(String name, String secret, String key) {
    return new EnvVarBuilder().withName(name).withNewValueFrom().withNewSecretKeyRef().withName(secret).withKey(key)
        .endSecretKeyRef().endValueFrom().build();
  }

  /** Liveness tolerates a few misses (a long GC pause is no reason to restart); readiness reacts at once. */
  private static Probe probe(String path, int port, int failureThreshold) {
    return new ProbeBuilder()
        .withNewHttpGet().withPath(path).withPort(new IntOrString(port)).endHttpGet()
        .withPeriodSeconds(5)
        .withTimeoutSeconds(3)
        .withFailureThreshold(failureThreshold)
        .build();
  }
}
