package io.granary.operator.resources;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.granary.operator.customresource.GranaryCluster;
import io.granary.operator.customresource.PodPlacement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The pod template of a node StatefulSet: labels, placement, the config volume, the node ServiceAccount. */
final class PodTemplate {
  /** The user the image runs as (deploy/docker/Dockerfile, the Jib profile). */
  static final long NODE_UID = 10001;
  /** Pod annotation with the config file's hash: a change of config rolls the pods. */
  static final String CONFIG_HASH = "granary.io/config-hash";

  private PodTemplate() {
  }

  static PodTemplateSpec of(GranaryCluster c, Role role, PodPlacement placement, Container container,
      List<Volume> extraVolumes) {
    List<Volume> volumes = new ArrayList<>();
    volumes.add(new VolumeBuilder().withName("config").withNewConfigMap().withName(Names.configMap(c)).endConfigMap()
        .build());
    volumes.addAll(extraVolumes);
    return new PodTemplateSpecBuilder()
        .withNewMetadata()
        .withLabels(Labels.of(c, role))
        .withAnnotations(Map.of(CONFIG_HASH, NodeConfigMap.hash(c)))
        .endMetadata()
        .withNewSpec()
        .withServiceAccountName(Names.nodeAccount(c))
        .withImagePullSecrets(c.getSpec().imagePullSecrets.isEmpty() ? null : c.getSpec().imagePullSecrets)
        .withNodeSelector(placement.nodeSelector.isEmpty() ? null : placement.nodeSelector)
        .withTolerations(placement.tolerations.isEmpty() ? null : placement.tolerations)
        .withAffinity(placement.affinity)
        // Long enough for a node to finish its in-flight requests and leave as a short maintenance on SIGTERM.
        .withTerminationGracePeriodSeconds(60L)
        // The image runs as uid 10001: fresh volumes (a PVC, a formatted local SSD) must be writable by it.
        .withNewSecurityContext().withRunAsNonRoot(true).withFsGroup(NODE_UID).endSecurityContext()
        .withContainers(container)
        .withVolumes(volumes)
        .endSpec()
        .build();
  }
}
