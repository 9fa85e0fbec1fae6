package io.granary.operator.resources;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.granary.operator.customresource.GranaryCluster;

/**
 * The headless Service of a role: stable DNS names {@code POD.SERVICE.NS.svc} for every pod, ready or not, since a
 * node must reach the primary (and the primary its nodes) before any of them is ready.
 */
public final class HeadlessService {
  private HeadlessService() {
  }

  public static Service desired(GranaryCluster c, Role role) {
    int port = role == Role.PROXY ? c.getSpec().proxy.port : c.getSpec().target.port;
    String name = role == Role.PROXY ? Names.proxies(c) : Names.targets(c);
    return new ServiceBuilder()
        .withMetadata(Owned.meta(c, name, Labels.of(c, role)))
        .withNewSpec()
        .withClusterIP("None")
        .withPublishNotReadyAddresses(true)
        .withSelector(Labels.selector(c, role))
        .addNewPort().withName("http").withPort(port).withTargetPort(new IntOrString(port)).withProtocol("TCP")
        .endPort()
        .endSpec()
        .build();
  }
}
