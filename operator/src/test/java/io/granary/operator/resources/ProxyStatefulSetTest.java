package io.granary.operator.resources;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.granary.operator.Fixtures;
import io.granary.operator.customresource.GranaryCluster;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProxyStatefulSetTest {
  private final GranaryCluster c = Fixtures.cluster("gc", "ns1", 3);

  @Test
  void desired_runsEveryProxyAlike_thePrimaryByLease() {
    c.getSpec().proxy.replicas = 2;
    StatefulSet s = ProxyStatefulSet.desired(c);

    assertThat(s.getMetadata().getName()).isEqualTo("gc-proxy");
    assertThat(s.getMetadata().getNamespace()).isEqualTo("ns1");
    assertThat(s.getSpec().getReplicas()).isEqualTo(2);
    assertThat(s.getSpec().getServiceName()).isEqualTo("gc-proxy");
    Container k = s.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(k.getImage()).isEqualTo("granary:test");
    assertThat(k.getCommand()).containsExactly("granary");
    assertThat(k.getArgs().get(0)).isEqualTo("proxy");
    assertThat(k.getArgs()).containsSequence("--k8s-lease", "gc-primary")
        .containsSequence("--k8s-namespace", "$(POD_NAMESPACE)").doesNotContain("--primary")
        .containsSequence("--port", "51080").containsSequence("--id", "$(POD_NAME)")
        .containsSequence("--public-url", "http://$(POD_NAME).gc-proxy.$(POD_NAMESPACE).svc:51080");
    // A proxy would read GRANARY_PRIMARY_URL as --primary.
    assertThat(k.getEnv()).extracting(EnvVar::getName).doesNotContain("GRANARY_PRIMARY_URL");
    assertThat(s.getSpec().getTemplate().getSpec().getSecurityContext().getFsGroup()).isEqualTo(10001L);
  }

  @Test
  void desired_pullsWithTheSpecsSecrets_onBothRoles() {
    assertThat(ProxyStatefulSet.desired(c).getSpec().getTemplate().getSpec().getImagePullSecrets()).isNullOrEmpty();
    c.getSpec().imagePullSecrets.add(new LocalObjectReference("regcred"));

    for (StatefulSet s : List.of(ProxyStatefulSet.desired(c), TargetStatefulSet.desired(c, 1))) {
      assertThat(s.getSpec().getTemplate().getSpec().getImagePullSecrets()).extracting(LocalObjectReference::getName)
          .as(s.getMetadata().getName()).containsExactly("regcred");
    }
  }

  @Test
  void proxyOrdinal_isReadFromThePodName_andNothingElse() {
    assertThat(Names.proxyOrdinal(c, "gc-proxy-0")).hasValue(0);
    assertThat(Names.proxyOrdinal(c, "gc-proxy-12")).hasValue(12);
    for (String other : new String[] {"gc-proxy-", "gc-proxy-x", "gc-proxy-1a", "gc-target-1", "other-proxy-1", "p1",
        "gc-proxy-99999999999"}) {
      assertThat(Names.proxyOrdinal(c, other)).as(other).isEmpty();
    }
  }

  @Test
  void desired_probesHealthAndReadiness() {
    Container k = ProxyStatefulSet.desired(c).getSpec().getTemplate().getSpec().getContainers().get(0);

    assertThat(k.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/v1/health");
    assertThat(k.getLivenessProbe().getHttpGet().getPort().getIntVal()).isEqualTo(51080);
    assertThat(k.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/v1/health/ready");
    assertThat(k.getPorts().get(0).getContainerPort()).isEqualTo(51080);
  }

  @Test
  void desired_takesTheClusterSecretFromTheSecretNeverInline() {
    Container k = ProxyStatefulSet.desired(c).getSpec().getTemplate().getSpec().getContainers().get(0);

    EnvVar secret = env(k, "GRANARY_CLUSTER_SECRET");
    assertThat(secret.getValue()).isNull();
    assertThat(secret.getValueFrom().getSecretKeyRef().getName()).isEqualTo("gc-cluster");
    assertThat(secret.getValueFrom().getSecretKeyRef().getKey()).isEqualTo(ClusterSecret.KEY);
  }

  @Test
  void desired_withAuthSecret_givesProxiesTheKeyPair() {
    c.getSpec().authSecret = "s3-keys";
    Container k = ProxyStatefulSet.desired(c).getSpec().getTemplate().getSpec().getContainers().get(0);

    assertThat(env(k, "GRANARY_ACCESS_KEY").getValueFrom().getSecretKeyRef().getName()).isEqualTo("s3-keys");
    assertThat(env(k, "GRANARY_ACCESS_KEY").getValueFrom().getSecretKeyRef().getKey()).isEqualTo("access-key");
    assertThat(env(k, "GRANARY_SECRET_KEY").getValueFrom().getSecretKeyRef().getKey()).isEqualTo("secret-key");
  }

  @Test
  void desired_selectorMatchesPodLabelsAndOwnerIsTheCluster() {
    StatefulSet s = ProxyStatefulSet.desired(c);

    assertThat(s.getSpec().getTemplate().getMetadata().getLabels())
        .containsAllEntriesOf(s.getSpec().getSelector().getMatchLabels());
    assertThat(s.getMetadata().getOwnerReferences()).singleElement().satisfies(o -> {
      assertThat(o.getKind()).isEqualTo("GranaryCluster");
      assertThat(o.getName()).isEqualTo("gc");
      assertThat(o.getUid()).isEqualTo("uid-gc");
      assertThat(o.getController()).isTrue();
    });
    assertThat(s.getSpec().getTemplate().getSpec().getServiceAccountName()).isEqualTo("gc-node");
  }

  @Test
  void desired_keepsMetadataOnAVolume() {
    c.getSpec().proxy.dataSize = "2Gi";
    c.getSpec().proxy.storageClass = "fast";
    StatefulSet s = ProxyStatefulSet.desired(c);

    assertThat(s.getSpec().getVolumeClaimTemplates()).singleElement().satisfies(pvc -> {
      assertThat(pvc.getMetadata().getName()).isEqualTo("data");
      assertThat(pvc.getSpec().getStorageClassName()).isEqualTo("fast");
      assertThat(pvc.getSpec().getResources().getRequests().get("storage").toString()).isEqualTo("2Gi");
    });
    assertThat(s.getSpec().getTemplate().getSpec().getContainers().get(0).getArgs())
        .containsSequence("--data", "/var/lib/granary");
  }

  static EnvVar env(Container k, String name) {
    return k.getEnv().stream().filter(e -> e.getName().equals(name)).findFirst()
        .orElseThrow(() -> new AssertionError("no env " + name));
  }
}
