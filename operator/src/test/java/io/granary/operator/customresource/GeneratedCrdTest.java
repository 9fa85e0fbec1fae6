package io.granary.operator.customresource;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.InputStream;
import org.junit.jupiter.api.Test;

/** The CRD the build generates from the model refuses the bad specs the API server can refuse. */
class GeneratedCrdTest {
  static final String CRD = "/META-INF/fabric8/granaryclusters.granary.io-v1.yml";

  private static CustomResourceDefinitionVersion version() throws Exception {
    try (InputStream in = GeneratedCrdTest.class.getResourceAsStream(CRD)) {
      assertThat(in).as("generated CRD " + CRD).isNotNull();
      CustomResourceDefinition crd = new KubernetesSerialization().unmarshal(in, CustomResourceDefinition.class);
      assertThat(crd.getSpec().getGroup()).isEqualTo("granary.io");
      assertThat(crd.getSpec().getScope()).isEqualTo("Namespaced");
      assertThat(crd.getSpec().getNames().getShortNames()).contains("gc");
      return crd.getSpec().getVersions().get(0);
    }
  }

  private static JSONSchemaProps spec() throws Exception {
    return version().getSchema().getOpenAPIV3Schema().getProperties().get("spec");
  }

  @Test
  void crd_servesV1alpha1WithAStatusSubresource() throws Exception {
    CustomResourceDefinitionVersion v = version();

    assertThat(v.getName()).isEqualTo("v1alpha1");
    assertThat(v.getSubresources().getStatus()).isNotNull();
  }

  @Test
  void crd_requiresImageAndAtLeastOneReplicaOfEachRole() throws Exception {
    JSONSchemaProps spec = spec();

    assertThat(spec.getRequired()).contains("image", "target");
    assertThat(spec.getProperties().get("proxy").getProperties().get("replicas").getMinimum().intValue()).isEqualTo(1);
    assertThat(spec.getProperties().get("target").getProperties().get("replicas").getMinimum().intValue())
        .isEqualTo(1);
    assertThat(spec.getProperties().get("target").getRequired()).contains("mountpaths");
    assertThat(spec.getProperties().get("target").getProperties().get("mountpaths").getMinItems()).isEqualTo(1L);
  }

  @Test
  void crd_checksMountpathSizesAndTheirKind() throws Exception {
    JSONSchemaProps mountpath = spec().getProperties().get("target").getProperties().get("mountpaths").getItems()
        .getSchema();

    assertThat(mountpath.getRequired()).contains("name");
    assertThat(mountpath.getProperties().get("size").getPattern()).isEqualTo(Mountpath.SIZE_PATTERN);
    assertThat(mountpath.getXKubernetesValidations()).extracting(r -> r.getRule())
        .contains("has(self.size) != has(self.hostPath)");
    assertThat(spec().getProperties().get("s3Service").getProperties().get("type").getPattern())
        .isEqualTo("^(ClusterIP|NodePort|LoadBalancer)$");
  }
}
