package io.granary.operator.resources;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.granary.operator.customresource.GranaryCluster;
import io.granary.operator.customresource.Mountpath;
import io.granary.operator.customresource.TargetSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The targets' StatefulSet, with {@code replicas} pods: the reconciler decides how many, since scaling down waits
 * for decommissioned targets to drain. Each mountpath is a volumeClaimTemplate or a hostPath, mounted at
 * /mnt/NAME. Targets get no {@code --id}: a decommissioned id may never join again, so a pod that comes back at an
 * ordinal keeps the id persisted on its disks, or, on fresh disks, makes a new one. The operator finds a target
 * by the host name it advertises (see {@link Names#targetHost}).
 */
public final class TargetStatefulSet {
  private TargetStatefulSet() {
  }

  public static StatefulSet desired(GranaryCluster c, int replicas) {
    TargetSpec t = c.getSpec().target;
    String mountpaths = t.mountpaths.stream().map(m -> "/mnt/" + m.name).collect(Collectors.joining(","));
    var container = NodeContainer.base(c, Role.TARGET, t.port, t)
        .withArgs("target",
            "--port", Integer.toString(t.port),
            "--primary", Names.proxiesUrl(c),
            "--mountpath", mountpaths,
            "--public-url", "http://$(POD_NAME)." + Names.targets(c) + ".$(POD_NAMESPACE).svc:" + t.port);
    for (Mountpath m : t.mountpaths) {
      container.addNewVolumeMount().withName(m.name).withMountPath("/mnt/" + m.name).endVolumeMount();
    }
    for (String secret : c.getSpec().backendSecrets) {
      container.addNewEnvFrom().withNewSecretRef().withName(secret).endSecretRef().endEnvFrom();
    }
    Container built = container.build();
    List<Volume> hostPaths = new ArrayList<>();
    List<PersistentVolumeClaim> claims = new ArrayList<>();
    for (Mountpath m : t.mountpaths) {
      if (m.hostPath != null) {
        hostPaths.add(new VolumeBuilder().withName(m.name).withNewHostPath().withPath(m.hostPath)
            .withType("DirectoryOrCreate").endHostPath().build());
      } else {
        claims.add(claim(c, m));
      }
    }
    return new StatefulSetBuilder()
        .withMetadata(Owned.meta(c, Names.targets(c), Labels.of(c, Role.TARGET)))
        .withNewSpec()
        .withReplicas(replicas)
        .withServiceName(Names.targets(c))
        .withPodManagementPolicy("Parallel")
        // One pod at a time, each after the one before is ready: a node leaves as a short maintenance on SIGTERM,
        // so an image upgrade moves no data.
        .withNewUpdateStrategy().withType("RollingUpdate").endUpdateStrategy()
        .withNewSelector().withMatchLabels(Labels.selector(c, Role.TARGET)).endSelector()
        .withTemplate(PodTemplate.of(c, Role.TARGET, t, built, hostPaths))
        .withVolumeClaimTemplates(claims)
        // Scaled away only after decommission drained it, so its disks hold nothing anyone needs; on delete the
        // spec decides.
        .withNewPersistentVolumeClaimRetentionPolicy()
        .withWhenScaled("Delete")
        .withWhenDeleted(c.getSpec().deleteVolumes ? "Delete" : "Retain")
        .endPersistentVolumeClaimRetentionPolicy()
        .endSpec()
        .build();
  }

  private static PersistentVolumeClaim claim(GranaryCluster c, Mountpath m) {
    return new PersistentVolumeClaimBuilder()
        .withNewMetadata().withName(m.name).withLabels(Labels.of(c, Role.TARGET)).endMetadata()
        .withNewSpec()
        .withAccessModes("ReadWriteOnce")
        .withStorageClassName(m.storageClass)
        .withNewResources().withRequests(Map.of("storage", new Quantity(m.size))).endResources()
        .endSpec()
        .build();
  }
}
