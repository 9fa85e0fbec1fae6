package io.granary.cli;

import io.granary.proxy.ProxyConfig;
import io.granary.proxy.ProxyNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code granary proxy}: runs one proxy (gateway) node. */
@Command(name = "proxy", mixinStandardHelpOptions = true,
    description = {"Run a proxy: the gateway clients talk to.",
        "Without --primary it is the primary proxy, which owns cluster metadata; with --primary it joins that one."})
public final class ProxyCommand implements Callable<Integer> {

  @Option(names = "--id", description = "Node id (default: persisted in --data, else generated).")
  String id;

  @Option(names = "--host", defaultValue = "${env:GRANARY_HOST:-0.0.0.0}",
      description = "Address to bind (default: ${DEFAULT-VALUE}; env GRANARY_HOST).")
  String host;

  @Option(names = "--port", defaultValue = "${env:GRANARY_PORT:-51080}",
      description = "Port to bind (default: ${DEFAULT-VALUE}; env GRANARY_PORT).")
  int port;

  @Option(names = "--public-url", defaultValue = "${env:GRANARY_PUBLIC_URL}",
      description = "URL peers and clients use to reach this node (default: http://HOST:PORT; env GRANARY_PUBLIC_URL).")
  String publicUrl;

  @Option(names = "--data", required = true, defaultValue = "${env:GRANARY_DATA}",
      description = "Directory for the node id and cluster metadata (env GRANARY_DATA).")
  Path data;

  @Option(names = "--primary", defaultValue = "${env:GRANARY_PRIMARY_URL}",
      description = "URL of the primary proxy to join; omit to make this proxy the primary (env GRANARY_PRIMARY_URL).")
  String primary;

  @Option(names = "--io-threads", defaultValue = "0", description = "Event-loop threads (default: number of cores).")
  int ioThreads;

  @Option(names = "--health-interval", defaultValue = "2s",
      description = "How often the primary health-checks each node (default: ${DEFAULT-VALUE}).",
      converter = DurationConverter.class)
  Duration healthInterval;

  @Option(names = "--offline-after", defaultValue = "10s",
      description = "Mark a node offline after it is silent this long (default: ${DEFAULT-VALUE}).",
      converter = DurationConverter.class)
  Duration offlineAfter;

  @Option(names = "--exit-with-parent", hidden = true, defaultValue = "0")
  long parentPid;

  @Override
  public Integer call() throws Exception {
    String host = this.host;
    if (publicUrl == null && "0.0.0.0".equals(host)) {
      publicUrl = "http://" + java.net.InetAddress.getLocalHost().getHostAddress() + ":" + port;
    }
    ProxyConfig cfg = new ProxyConfig(id, host, port, publicUrl, data, primary,
        ioThreads > 0 ? ioThreads : Runtime.getRuntime().availableProcessors(), healthInterval, offlineAfter,
        Duration.ofMinutes(5));
    NodeRunner.FatalSignal fatal = new NodeRunner.FatalSignal();
    ProxyNode node = ProxyNode.start(cfg, fatal);
    return NodeRunner.run(node, parentPid, fatal);
  }
}
