package io.granary.operator.resources;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.granary.operator.customresource.GranaryCluster;
import io.granary.operator.customresource.S3ServiceSpec;

/** The S3 and native API Service: ready proxies only, of the type the spec asks for. */
public final class ClientService {
  private ClientService() {
  }

  public static Service desired(GranaryCluster c) {
    S3ServiceSpec s = c.getSpec().s3Service;
    Service svc = new ServiceBuilder()
        .withMetadata(Owned.meta(c, Names.clientService(c), Labels.of(c, Role.PROXY)))
        .withNewSpec()
        .withType(s.type)
        .withSelector(Labels.selector(c, Role.PROXY))
        .addNewPort().withName("http").withPort(s.port).withTargetPort(new IntOrString(c.getSpec().proxy.port))
        .withProtocol("TCP").endPort()
        .endSpec()
        .build();
    if (!s.annotations.isEmpty()) {
      svc.getMetadata().setAnnotations(s.annotations);
    }
    return svc;
  }
}
