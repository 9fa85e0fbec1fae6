package io.granary.operator.resources;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.granary.operator.customresource.GranaryCluster;
import io.granary.operator.customresource.ProxySpec;
import java.util.List;
import java.util.Map;

/**
 * The proxies' StatefulSet. Pod 0 starts as the primary and the others join it: the pods share one template, so
 * the command picks by the pod's ordinal (a shell {@code if}), the only per-pod difference.
 */
public final class ProxyStatefulSet {
  static final String DATA_DIR = "/var/lib/granary";
  /** The first primary's URL, for proxies other than pod 0. */
  static final String PRIMARY_ENV = "GRANARY_FIRST_PRIMARY_URL";

  /** Runs {@code granary proxy ARGS}, with {@code --primary} on every pod but ordinal 0. */
  static final String LAUNCH = "if [ \"${POD_NAME##*-}\" = 0 ]; then exec granary proxy \"$@\"; "
      + "else exec granary proxy --primary \"$" + PRIMARY_ENV + "\" \"$@\"; fi";

  private ProxyStatefulSet() {
  }

  public static StatefulSet desired(GranaryCluster c) {
    ProxySpec p = c.getSpec().proxy;
    Container container = NodeContainer.base(c, Role.PROXY, p.port, p)
        .withCommand("/bin/sh", "-c")
        .withArgs(LAUNCH, "granary-proxy",
            "--id", "$(POD_NAME)",
            "--port", Integer.toString(p.port),
            "--data", DATA_DIR,
            "--public-url", "http://$(POD_NAME)." + Names.proxies(c) + ".$(POD_NAMESPACE).svc:" + p.port)
        .addNewVolumeMount().withName("data").withMountPath(DATA_DIR).endVolumeMount()
        .build();
    PersistentVolumeClaim data = new PersistentVolumeClaimBuilder()
        .withNewMetadata().withName("data").withLabels(Labels.of(c, Role.PROXY)).endMetadata()
        .withNewSpec()
        .withAccessModes("ReadWriteOnce")
        .withStorageClassName(p.storageClass)
        .withNewResources().withRequests(Map.of("storage", new Quantity(p.dataSize))).endResources()
        .endSpec()
        .build();
    return new StatefulSetBuilder()
        .withMetadata(Owned.meta(c, Names.proxies(c), Labels.of(c, Role.PROXY)))
        .withNewSpec()
        .withReplicas(p.replicas)
        .withServiceName(Names.proxies(c))
        .withPodManagementPolicy("Parallel")
        .withNewSelector().withMatchLabels(Labels.selector(c, Role.PROXY)).endSelector()
        .withTemplate(PodTemplate.of(c, Role.PROXY, p, container, List.of()))
        .withVolumeClaimTemplates(data)
        .endSpec()
        .build();
  }
}
