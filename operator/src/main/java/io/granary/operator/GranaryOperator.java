package io.granary.operator;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.granary.operator.clusterapi.ClusterLocator;
import io.granary.operator.reconciler.GranaryClusterReconciler;
import io.javaoperatorsdk.operator.Operator;
import java.time.Clock;
import java.util.Set;

/**
 * Starts the operator: one controller for GranaryCluster resources. Writes use create, update and JSON merge patch,
 * not server-side apply: the reconciler owns whole objects and needs no field ownership, and fabric8's mock server
 * (the API server of the tests here) answers SSA with 415.
 */
public final class GranaryOperator {
  private GranaryOperator() {
  }

  /**
   * Registers the controller and starts it; the caller stops the returned operator.
   *
   * @param namespaces namespaces to watch; empty for all
   */
  public static Operator start(KubernetesClient client, ClusterLocator locator, Set<String> namespaces) {
    Operator operator = new Operator(o -> o
        .withKubernetesClient(client)
        .withCloseClientOnStop(false)
        .withUseSSAToPatchPrimaryResource(false)
        .withSSABasedCreateUpdateMatchForDependentResources(false));
    GranaryClusterReconciler reconciler = new GranaryClusterReconciler(locator, Clock.systemUTC());
    if (namespaces.isEmpty()) {
      operator.register(reconciler);
    } else {
      operator.register(reconciler, o -> o.settingNamespaces(namespaces));
    }
    operator.start();
    return operator;
  }
}
