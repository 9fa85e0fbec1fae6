package io.granary.cli;

import io.granary.common.config.ByteSize;
import io.granary.target.TargetConfig;
import io.granary.target.TargetNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code granary target}: runs one storage node. */
@Command(name = "target", mixinStandardHelpOptions = true,
    description = "Run a target: a storage node that keeps objects on its mountpaths and registers with the primary.")
public final class TargetCommand implements Callable<Integer> {

  @Mixin
  NodeOptions node = new NodeOptions();

  @Option(names = "--port", defaultValue = "${env:GRANARY_PORT:-51081}",
      description = "Port to bind (default: ${DEFAULT-VALUE}; env GRANARY_PORT).")
  int port;

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

  @Option(names = "--disk-threads", defaultValue = "0",
      description = "Threads for blocking disk work (default: 4 per core, at least 8).")
  int diskThreads;

  @Option(names = "--multipart-ttl", defaultValue = "7d", converter = DurationConverter.class,
      description = "Abort multipart uploads not completed within this time (default: ${DEFAULT-VALUE}).")
  Duration multipartTtl;

  @Override
  public Integer call() throws Exception {
    int cores = Runtime.getRuntime().availableProcessors();
    TargetConfig cfg = new TargetConfig(node.id, node.host, port, node.publicUrl(port), mountpaths, primary, weight,
        ByteSize.parse(reserve), node.ioThreads(), diskThreads > 0 ? diskThreads : Math.max(8, 4 * cores),
        Duration.ofMinutes(5), Duration.ofSeconds(10), multipartTtl, node.clusterSecret());
    NodeRunner.FatalSignal fatal = new NodeRunner.FatalSignal();
    return NodeRunner.run(TargetNode.start(cfg, fatal), node.parentPid, fatal);
  }
}
