package io.granary.charts;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import org.junit.jupiter.api.Test;

/**
 * The GranaryCluster CRD the operator chart installs (crds/): a copy of the one operator/ generates from its model
 * (crd-generator), which must stay equal to it; and what a cluster cannot do without.
 */
class CrdTest {
  private static final CustomResourceDefinition CRD =
      Rendered.SERIALIZATION.unmarshal(Repo.read(CrdSchema.FILE), CustomResourceDefinition.class);

  @Test
  void chartCrd_isTheOneTheOperatorGenerates() throws Exception {
    String generated;
    try (var in = CrdTest.class.getResourceAsStream("/META-INF/fabric8/granaryclusters.granary.io-v1.yml")) {
      assertThat(in).as("the operator jar's generated CRD").isNotNull();
      generated = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    }
    assertThat(Repo.read(CrdSchema.FILE)).as("%s: copy operator/target/classes/META-INF/fabric8/"
        + "granaryclusters.granary.io-v1.yml over it", CrdSchema.FILE).isEqualTo(generated);
  }

  @Test
  void crd_isWellFormed_forTheModel() {
    assertThat(UnknownFields.of(CRD)).isEmpty();
    var spec = CRD.getSpec();
    assertThat(spec.getGroup()).isEqualTo("granary.io");
    assertThat(spec.getNames().getKind()).isEqualTo("GranaryCluster");
    assertThat(spec.getNames().getPlural()).isEqualTo("granaryclusters");
    assertThat(CRD.getMetadata().getName()).isEqualTo(spec.getNames().getPlural() + "." + spec.getGroup());
    assertThat(spec.getScope()).isEqualTo("Namespaced");
    assertThat(spec.getVersions()).hasSize(1);
    CustomResourceDefinitionVersion v = spec.getVersions().get(0);
    assertThat(v.getName()).isEqualTo("v1alpha1");
    assertThat(v.getServed()).isTrue();
    assertThat(v.getStorage()).isTrue();
    // The operator writes status through the status subresource, so spec edits and status never race.
    assertThat(v.getSubresources().getStatus()).isNotNull();
  }

  @Test
  void schema_requiresWhatAClusterCannotDoWithout_andBoundsReplicas() {
    JSONSchemaProps spec = CRD.getSpec().getVersions().get(0).getSchema().getOpenAPIV3Schema().getProperties()
        .get("spec");
    assertThat(spec.getRequired()).contains("image", "target");
    JSONSchemaProps target = spec.getProperties().get("target");
    assertThat(target.getRequired()).contains("mountpaths");
    assertThat(target.getProperties().get("replicas").getMinimum()).isEqualTo(1.0);
    assertThat(target.getProperties().get("mountpaths").getMinItems()).isEqualTo(1L);
    assertThat(spec.getProperties().get("proxy").getProperties().get("replicas").getMinimum()).isEqualTo(1.0);
    // Volume claim or host path, never both: CEL, evaluated by the API server.
    assertThat(target.getProperties().get("mountpaths").getItems().getSchema().getXKubernetesValidations())
        .anySatisfy(rule -> assertThat(rule.getRule()).contains("hostPath").contains("size"));
  }
}
