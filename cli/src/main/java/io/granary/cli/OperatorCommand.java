package io.granary.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.granary.operator.GranaryOperator;
import io.granary.operator.clusterapi.InClusterLocator;
import io.javaoperatorsdk.operator.Operator;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code granary operator}: runs the Kubernetes operator for GranaryCluster resources (docs/operator.md). */
@Command(name = "operator", mixinStandardHelpOptions = true,
    description = {"Run the Kubernetes operator: keeps every GranaryCluster resource as its spec says.",
        "Uses the pod's service account in a cluster, else the current kubeconfig context."})
public final class OperatorCommand implements Callable<Integer> {

  @Option(names = "--namespace", split = ",", paramLabel = "NS",
      description = "Namespace to watch (repeatable or comma-separated; default: all namespaces).")
  List<String> namespaces = new ArrayList<>();

  @Override
  public Integer call() throws Exception {
    try (KubernetesClient client = new KubernetesClientBuilder().build()) {
      Operator operator = GranaryOperator.start(client, new InClusterLocator(), Set.copyOf(namespaces));
      CountDownLatch stopped = new CountDownLatch(1);
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        operator.stop();
        stopped.countDown();
      }, "operator-stop"));
      stopped.await();
      return 0;
    }
  }
}
