package io.granary.operator.resources;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.granary.operator.Fixtures;
import io.granary.operator.customresource.GranaryCluster;
import org.junit.jupiter.api.Test;

class NodeConfigMapTest {
  private final GranaryCluster c = Fixtures.cluster("gc", "ns1", 3);

  @Test
  void desired_writesOverridesAsYaml_sortedOnePerLine_roleSettingsInTheirSection() {
    c.getSpec().config.put("target.rebalance-bandwidth", "64MiB");
    c.getSpec().config.put("head-timeout", "10s");
    c.getSpec().config.put("proxy.s3-redirect", "true");
    c.getSpec().config.put("target.weight", "say \"2\"\n");
    ConfigMap m = NodeConfigMap.desired(c);

    assertThat(m.getMetadata().getName()).isEqualTo("gc-config");
    assertThat(m.getData().get("granary.yaml")).endsWith("""
        head-timeout: "10s"
        proxy:
          s3-redirect: "true"
        target:
          rebalance-bandwidth: "64MiB"
          weight: "say \\"2\\"\\n"
        """);
  }

  @Test
  void podTemplates_carryTheConfigHash_soAChangeRollsThePods() {
    String before = TargetStatefulSet.desired(c, 3).getSpec().getTemplate().getMetadata().getAnnotations()
        .get(PodTemplate.CONFIG_HASH);
    c.getSpec().config.put("rebalance-bandwidth", "64MiB");
    String after = TargetStatefulSet.desired(c, 3).getSpec().getTemplate().getMetadata().getAnnotations()
        .get(PodTemplate.CONFIG_HASH);

    assertThat(before).isNotBlank();
    assertThat(after).isNotEqualTo(before);
    assertThat(ProxyStatefulSet.desired(c).getSpec().getTemplate().getMetadata().getAnnotations())
        .containsEntry(PodTemplate.CONFIG_HASH, after);
  }

  @Test
  void nodes_mountTheConfigAndAreToldWhereItIs() {
    var pod = TargetStatefulSet.desired(c, 3).getSpec().getTemplate().getSpec();

    assertThat(pod.getVolumes()).anySatisfy(v -> assertThat(v.getConfigMap().getName()).isEqualTo("gc-config"));
    assertThat(ProxyStatefulSetTest.env(pod.getContainers().get(0), "GRANARY_CONFIG").getValue())
        .isEqualTo("/etc/granary/granary.yaml");
  }
}
