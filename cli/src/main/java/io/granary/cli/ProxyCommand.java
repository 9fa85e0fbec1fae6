package io.granary.cli;

import io.granary.proxy.ProxyConfig;
import io.granary.proxy.ProxyNode;
import io.granary.common.s3.auth.CredentialStore;
import io.granary.proxy.k8s.LeaseSettings;
import io.granary.proxy.rebalance.RetryPolicy;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code granary proxy}: runs one proxy (gateway) node. */
@Command(name = "proxy", mixinStandardHelpOptions = true,
    description = {"Run a proxy: the gateway clients talk to.",
        "Without --primary it is the primary proxy, which owns cluster metadata; with --primary it joins that one."})
public final class ProxyCommand implements Callable<Integer> {

  @Mixin
  NodeOptions node = new NodeOptions();

  @Option(names = "--port", defaultValue = "${env:GRANARY_PORT:-51080}",
      description = "Port to bind (default: ${DEFAULT-VALUE}; env GRANARY_PORT).")
  int port;

  @Option(names = "--data", required = true, defaultValue = "${env:GRANARY_DATA}",
      description = "Directory for the node id and cluster metadata (env GRANARY_DATA).")
  Path data;

  @Option(names = "--primary", defaultValue = "${env:GRANARY_PRIMARY_URL}", converter = ProxyUrl.class,
      description = {"URL of the primary proxy to join; omit to make this proxy the primary (env GRANARY_PRIMARY_URL).",
          "Its host may be a DNS name that resolves only later (a Kubernetes Service): joining retries until it does."})
  String primary;

  @Option(names = "--health-interval", defaultValue = "2s",
      description = "How often the primary health-checks each node (default: ${DEFAULT-VALUE}).",
      converter = DurationConverter.class)
  Duration healthInterval;

  @Option(names = "--offline-after", defaultValue = "10s",
      description = "Mark a node offline after it is silent this long (default: ${DEFAULT-VALUE}).",
      converter = DurationConverter.class)
  Duration offlineAfter;

  @Mixin
  S3KeyOptions keys = new S3KeyOptions();

  @Option(names = "--anonymous", description = "Serve unsigned requests instead of answering 403 AccessDenied.")
  boolean anonymous;

  @Option(names = "--native-auth", defaultValue = "true", arity = "1",
      description = "Require SigV4 on the native /v1/ API too (default: ${DEFAULT-VALUE}).")
  boolean nativeAuth;

  @Option(names = "--s3-redirect",
      description = "Answer S3 object GET/HEAD with 307 to a signed target URL (for clients that follow it) "
          + "instead of streaming through the proxy.")
  boolean s3Redirect;

  @Option(names = "--upstream-head-timeout", defaultValue = "1h", converter = DurationConverter.class,
      paramLabel = "DURATION",
      description = {"How long an S3 request relayed whole to its target may wait for the target's answer to start; "
          + "then 504 GatewayTimeout and the connection to the target is closed (default: ${DEFAULT-VALUE}).",
          "Long enough for a CompleteMultipartUpload assembling about 500 GiB (docs/http-api.md)."})
  Duration upstreamHeadTimeout;

  @Option(names = "--rebalance-retry-delay", defaultValue = "10s",
      description = {"Wait before retrying a failed rebalance by itself (default: ${DEFAULT-VALUE}, at least 1s); "
          + "doubles per failed attempt up to --rebalance-retry-max-delay."}, converter = DurationConverter.class)
  Duration rebalanceRetryDelay;

  @Option(names = "--rebalance-retry-max-delay", defaultValue = "5m",
      description = "Longest wait between two attempts of a failed rebalance (default: ${DEFAULT-VALUE}).",
      converter = DurationConverter.class)
  Duration rebalanceRetryMaxDelay;

  @Option(names = "--rebalance-attempts", defaultValue = "8", paramLabel = "N",
      description = "Attempts of a failed rebalance in all, the first included, before the primary gives up "
          + "(default: ${DEFAULT-VALUE}; 1: no automatic retry).")
  int rebalanceAttempts;

  @Option(names = "--k8s-lease", defaultValue = "${env:GRANARY_K8S_LEASE}", paramLabel = "NAME",
      description = {"Elect the primary with this Kubernetes Lease (metadata in ConfigMap NAME-metadata) instead "
          + "of --primary; see docs/cluster-map.md (env GRANARY_K8S_LEASE)."})
  String k8sLease;

  @Option(names = "--k8s-namespace", defaultValue = "${env:GRANARY_K8S_NAMESPACE}",
      description = "Namespace of the Lease and ConfigMap (default: the pod's own, else the client's).")
  String k8sNamespace;

  @Option(names = "--k8s-lease-duration", defaultValue = "15s", converter = DurationConverter.class,
      description = "How long an unrenewed Lease blocks a takeover (default: ${DEFAULT-VALUE}).")
  Duration k8sLeaseDuration;

  CredentialStore credentials() throws IOException {
    return keys.credentials();
  }

  @Override
  public Integer call() throws Exception {
    ProxyConfig cfg = new ProxyConfig(node.id, node.host, port, node.publicUrl(port), data, primary, node.ioThreads(),
        healthInterval, offlineAfter, node.httpLimits(), node.clusterSecret(), credentials(), anonymous, nativeAuth,
        s3Redirect, new RetryPolicy(rebalanceRetryDelay, rebalanceRetryMaxDelay, rebalanceAttempts))
        .withLease(k8sLease == null ? null : LeaseSettings.of(k8sLease, k8sNamespace, k8sLeaseDuration))
        .withUpstreamHeadTimeout(upstreamHeadTimeout);
    Duration grace = node.shutdownGrace();
    NodeRunner.FatalSignal fatal = new NodeRunner.FatalSignal();
    return NodeRunner.run(ProxyNode.start(cfg, fatal), node.parentPid, fatal, grace);
  }
}
