package io.granary.cli;

import io.granary.proxy.ProxyConfig;
import io.granary.proxy.ProxyNode;
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

  @Option(names = "--primary", defaultValue = "${env:GRANARY_PRIMARY_URL}",
      description = "URL of the primary proxy to join; omit to make this proxy the primary (env GRANARY_PRIMARY_URL).")
  String primary;

  @Option(names = "--health-interval", defaultValue = "2s",
      description = "How often the primary health-checks each node (default: ${DEFAULT-VALUE}).",
      converter = DurationConverter.class)
  Duration healthInterval;

  @Option(names = "--offline-after", defaultValue = "10s",
      description = "Mark a node offline after it is silent this long (default: ${DEFAULT-VALUE}).",
      converter = DurationConverter.class)
  Duration offlineAfter;

  @Override
  public Integer call() throws Exception {
    ProxyConfig cfg = new ProxyConfig(node.id, node.host, port, node.publicUrl(port), data, primary, node.ioThreads(),
        healthInterval, offlineAfter, Duration.ofMinutes(5), node.clusterSecret());
    NodeRunner.FatalSignal fatal = new NodeRunner.FatalSignal();
    return NodeRunner.run(ProxyNode.start(cfg, fatal), node.parentPid, fatal);
  }
}
