package io.granary.operator.resources;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.granary.operator.Fixtures;
import io.granary.operator.customresource.GranaryCluster;
import org.junit.jupiter.api.Test;

class TargetStatefulSetTest {
  private final GranaryCluster c = Fixtures.cluster("gc", "ns1", 3);

  @Test
  void desired_runsTheReplicasTheReconcilerDecides() {
    StatefulSet s = TargetStatefulSet.desired(c, 5);

    assertThat(s.getMetadata().getName()).isEqualTo("gc-target");
    assertThat(s.getSpec().getReplicas()).isEqualTo(5);
    assertThat(s.getSpec().getServiceName()).isEqualTo("gc-target");
    assertThat(s.getSpec().getUpdateStrategy().getType()).isEqualTo("RollingUpdate");
  }

  @Test
  void desired_joinsThroughTheProxiesServiceAndAdvertisesItsPodName() {
    Container k = TargetStatefulSet.desired(c, 3).getSpec().getTemplate().getSpec().getContainers().get(0);

    assertThat(k.getArgs()).startsWith("target").containsSequence("--port", "51081")
        .containsSequence("--public-url", "http://$(POD_NAME).gc-target.$(POD_NAMESPACE).svc:51081")
        .containsSequence("--primary", "http://gc-proxy.ns1.svc:51080")
        .doesNotContain("--id");
    assertThat(k.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/v1/health/ready");
    assertThat(k.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/v1/health");
  }

  @Test
  void desired_volumeMountpaths_areClaimTemplatesMountedUnderMnt() {
    c.getSpec().target.mountpaths.get(0).storageClass = "premium-rwo";
    StatefulSet s = TargetStatefulSet.desired(c, 3);
    Container k = s.getSpec().getTemplate().getSpec().getContainers().get(0);

    assertThat(k.getArgs()).containsSequence("--mountpath", "/mnt/d1,/mnt/d2");
    assertThat(k.getVolumeMounts()).extracting(m -> m.getName() + "@" + m.getMountPath())
        .contains("d1@/mnt/d1", "d2@/mnt/d2");
    assertThat(s.getSpec().getVolumeClaimTemplates()).extracting(p -> p.getMetadata().getName())
        .containsExactly("d1", "d2");
    PersistentVolumeClaim d1 = s.getSpec().getVolumeClaimTemplates().get(0);
    assertThat(d1.getSpec().getStorageClassName()).isEqualTo("premium-rwo");
    assertThat(d1.getSpec().getResources().getRequests().get("storage").toString()).isEqualTo("10Gi");
    assertThat(d1.getMetadata().getLabels()).containsAllEntriesOf(Labels.selector(c, Role.TARGET));
  }

  @Test
  void desired_hostPathMountpaths_areNodeDirectories() {
    c.getSpec().target.mountpaths.clear();
    c.getSpec().target.mountpaths.add(Fixtures.hostPath("nvme0", "/mnt/disks/nvme0"));
    StatefulSet s = TargetStatefulSet.desired(c, 3);

    assertThat(s.getSpec().getVolumeClaimTemplates()).isEmpty();
    assertThat(s.getSpec().getTemplate().getSpec().getVolumes()).anySatisfy(v -> {
      assertThat(v.getName()).isEqualTo("nvme0");
      assertThat(v.getHostPath().getPath()).isEqualTo("/mnt/disks/nvme0");
    });
  }

  @Test
  void desired_keepsVolumesOnDeleteUnlessAsked() {
    assertThat(TargetStatefulSet.desired(c, 3).getSpec().getPersistentVolumeClaimRetentionPolicy().getWhenDeleted())
        .isEqualTo("Retain");
    c.getSpec().deleteVolumes = true;
    assertThat(TargetStatefulSet.desired(c, 3).getSpec().getPersistentVolumeClaimRetentionPolicy().getWhenDeleted())
        .isEqualTo("Delete");
    // A pod scaled away was decommissioned and drained first: its disks hold nothing the cluster needs.
    assertThat(TargetStatefulSet.desired(c, 3).getSpec().getPersistentVolumeClaimRetentionPolicy().getWhenScaled())
        .isEqualTo("Delete");
  }

  @Test
  void desired_withAuthSecret_givesTargetsTheKeyPair_forTheReadsClientsSendThemDirectly() {
    Container none = TargetStatefulSet.desired(c, 3).getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(none.getEnv()).noneMatch(e -> e.getName().startsWith("GRANARY_ACCESS_KEY"));

    c.getSpec().authSecret = "s3-keys";
    Container k = TargetStatefulSet.desired(c, 3).getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(ProxyStatefulSetTest.env(k, "GRANARY_ACCESS_KEY").getValueFrom().getSecretKeyRef().getName())
        .isEqualTo("s3-keys");
    assertThat(ProxyStatefulSetTest.env(k, "GRANARY_SECRET_KEY").getValueFrom().getSecretKeyRef().getKey())
        .isEqualTo("secret-key");
    assertThat(ProxyStatefulSetTest.env(k, "GRANARY_SECRET_KEY").getValue()).as("never inline").isNull();
  }

  @Test
  void desired_givesBackendSecretsToTargetsAsEnvironment() {
    c.getSpec().backendSecrets.add("aws-creds");
    c.getSpec().backendSecrets.add("gcs-creds");
    Container k = TargetStatefulSet.desired(c, 3).getSpec().getTemplate().getSpec().getContainers().get(0);

    assertThat(k.getEnvFrom()).extracting(e -> e.getSecretRef().getName()).containsExactly("aws-creds", "gcs-creds");
  }

  @Test
  void desired_placesPodsAsTheSpecSays() {
    c.getSpec().target.nodeSelector.put("cloud.google.com/gke-nodepool", "storage");
    StatefulSet s = TargetStatefulSet.desired(c, 3);

    assertThat(s.getSpec().getTemplate().getSpec().getNodeSelector())
        .containsEntry("cloud.google.com/gke-nodepool", "storage");
    assertThat(s.getSpec().getTemplate().getMetadata().getLabels())
        .containsAllEntriesOf(s.getSpec().getSelector().getMatchLabels());
  }
}
