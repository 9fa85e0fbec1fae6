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
 * The proxies' StatefulSet. Every proxy runs the same command: the primary is whichever holds the cluster's Lease
 * ({@code --k8s-lease}, docs/cluster-map.md), and the map and bucket metadata live in its ConfigMap, so a new
 * primary resumes where the last one stopped and any proxy pod can go.
 */
public final class ProxyStatefulSet {
  static final String DATA_DIR = "/var/lib/granary";

  private ProxyStatefulSet() {
  }

  public static StatefulSet desired(GranaryCluster c) {
    ProxySpec p = c.getSpec().proxy;
    Container container = NodeContainer.base(c, Role.PROXY, p.port, p)
        .withCommand("granary")
        .withArgs("proxy",
            "--k8s-lease", Names.lease(c),
            "--k8s-namespace", "$(POD_NAMESPACE)",
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
