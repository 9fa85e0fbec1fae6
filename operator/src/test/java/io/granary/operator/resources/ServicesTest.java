package io.granary.operator.resources;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Service;
import io.granary.operator.Fixtures;
import io.granary.operator.customresource.GranaryCluster;
import org.junit.jupiter.api.Test;

class ServicesTest {
  private final GranaryCluster c = Fixtures.cluster("gc", "ns1", 3);

  @Test
  void headless_publishesEveryPodReadyOrNot() {
    Service proxies = HeadlessService.desired(c, Role.PROXY);
    Service targets = HeadlessService.desired(c, Role.TARGET);

    assertThat(proxies.getMetadata().getName()).isEqualTo("gc-proxy");
    assertThat(proxies.getSpec().getClusterIP()).isEqualTo("None");
    assertThat(proxies.getSpec().getPublishNotReadyAddresses()).isTrue();
    assertThat(proxies.getSpec().getPorts().get(0).getPort()).isEqualTo(51080);
    assertThat(proxies.getSpec().getSelector()).isEqualTo(Labels.selector(c, Role.PROXY));
    assertThat(targets.getMetadata().getName()).isEqualTo("gc-target");
    assertThat(targets.getSpec().getPorts().get(0).getPort()).isEqualTo(51081);
    assertThat(targets.getSpec().getSelector()).isEqualTo(Labels.selector(c, Role.TARGET));
  }

  @Test
  void client_forwardsTheServicePortToTheProxies() {
    c.getSpec().s3Service.type = "LoadBalancer";
    c.getSpec().s3Service.port = 443;
    c.getSpec().s3Service.annotations.put("cloud.google.com/l4-rbs", "enabled");
    Service s = ClientService.desired(c);

    assertThat(s.getMetadata().getName()).isEqualTo("gc-s3");
    assertThat(s.getSpec().getType()).isEqualTo("LoadBalancer");
    assertThat(s.getSpec().getPorts().get(0).getPort()).isEqualTo(443);
    assertThat(s.getSpec().getPorts().get(0).getTargetPort().getIntVal()).isEqualTo(51080);
    assertThat(s.getSpec().getSelector()).isEqualTo(Labels.selector(c, Role.PROXY));
    assertThat(s.getMetadata().getAnnotations()).containsEntry("cloud.google.com/l4-rbs", "enabled");
    assertThat(s.getMetadata().getOwnerReferences()).singleElement()
        .satisfies(o -> assertThat(o.getName()).isEqualTo("gc"));
    assertThat(Names.endpoint(c)).isEqualTo("http://gc-s3.ns1.svc:443");
  }
}
