package io.granary.cli;

import io.granary.common.config.ByteSize;
import io.granary.target.TargetConfig;
import io.granary.target.TargetNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code granary target}: runs one storage node. */
@Command(name = "target", mixinStandardHelpOptions = true,
    description = "Run a target: a storage node that keeps objects on its mountpaths and registers with the primary.")
public final class TargetCommand implements Callable<Integer> {

  @Option(names = "--id", description = "Node id (default: persisted in the mountpaths, else generated).")
  String id;

  @Option(names = "--host", defaultValue = "${env:GRANARY_HOST:-0.0.0.0}",
      description = "Address to bind (default: ${DEFAULT-VALUE}; env GRANARY_HOST).")
  String host;

  @Option(names = "--port", defaultValue = "${env:GRANARY_PORT:-51081}",
      description = "Port to bind (default: ${DEFAULT-VALUE}; env GRANARY_PORT).")
  int port;

  @Option(names = "--public-url", defaultValue = "${env:GRANARY_PUBLIC_URL}",
      description = "URL clients and peers use to reach this node (default: http://HOST:PORT; env GRANARY_PUBLIC_URL).")
  String publicUrl;

  @Option(names = "--mountpath", required = true, split = ",",
      description = "A local directory (one per disk) for objects and metadata; repeat for each disk.")
  List<Path> mountpaths;

  @Option(names = "--primary", required = true, defaultValue = "${env:GRANARY_PRIMARY_URL}",
      description = "URL of the primary proxy (env GRANARY_PRIMARY_URL).")
  String primary;

  @Option(names = "--weight", defaultValue = "1",
      description = "Placement weight: relative capacity of this target (default: ${DEFAULT-VALUE}).")
  double weight;

  @Option(names = "--reserve", defaultValue = "256MiB",
      description = "Free space each mountpath keeps; PUTs that would use it get 507 (default: ${DEFAULT-VALUE}).")
  String reserve;

  @Option(names = "--io-threads", defaultValue = "0", description = "Event-loop threads (default: number of cores).")
  int ioThreads;

  @Option(names = "--disk-threads", defaultValue = "0",
      description = "Threads for blocking disk work (default: 4 per core, at least 8).")
  int diskThreads;

  @Option(names = "--exit-with-parent", hidden = true, defaultValue = "0")
  long parentPid;

  @Override
  public Integer call() throws Exception {
    int cores = Runtime.getRuntime().availableProcessors();
    String host = this.host;
    if (publicUrl == null && "0.0.0.0".equals(host)) {
      publicUrl = "http://" + java.net.InetAddress.getLocalHost().getHostAddress() + ":" + port;
    }
    TargetConfig cfg = new TargetConfig(id, host, port, publicUrl, mountpaths, primary, weight, ByteSize.parse(reserve),
        ioThreads > 0 ? ioThreads : cores, diskThreads > 0 ? diskThreads : Math.max(8, 4 * cores),
        Duration.ofMinutes(5), Duration.ofSeconds(10));
    NodeRunner.FatalSignal fatal = new NodeRunner.FatalSignal();
    TargetNode node = TargetNode.start(cfg, fatal);
    return NodeRunner.run(node, parentPid, fatal);
  }
}
