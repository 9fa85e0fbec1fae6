package io.granary.cli;

import io.granary.common.config.ByteSize;
import io.granary.target.CacheConfig;
import io.granary.target.TargetConfig;
import io.granary.target.TargetNode;
import io.granary.target.rebalance.RebalanceConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code granary target}: runs one storage node. */
@Command(name = "target", mixinStandardHelpOptions = true,
    description = "Run a target: a storage node that keeps objects on its mountpaths and registers with the primary.")
public final class TargetCommand implements Callable<Integer> {
  private static final Logger log = LoggerFactory.getLogger(TargetCommand.class);

  @Mixin
  NodeOptions node = new NodeOptions();

  // The proxy's keys: object GET and HEAD signed with one may come straight to this target (docs/s3-api.md)
  @Mixin
  S3KeyOptions keys = new S3KeyOptions();

  @Option(names = "--port", defaultValue = "${env:GRANARY_PORT:-51081}",
      description = "Port to bind (default: ${DEFAULT-VALUE}; env GRANARY_PORT).")
  int port;

  @Option(names = "--mountpath", required = true, split = ",",
      description = "A local directory (one per disk) for objects and metadata; repeat for each disk.")
  List<Path> mountpaths;

  @Option(names = "--primary", required = true, defaultValue = "${env:GRANARY_PRIMARY_URL}",
      converter = ProxyUrl.class,
      description = {"URL of the primary proxy (env GRANARY_PRIMARY_URL).",
          "Its host may be a DNS name that resolves only later (a Kubernetes Service): joining retries until it does."})
  String primary;

  @Option(names = "--weight", defaultValue = "1", paramLabel = "W|auto",
      description = {"Placement weight: relative capacity of this target (default: ${DEFAULT-VALUE}).",
          "auto: the capacity of the mountpaths in TiB (--capacity each if given, else each one's file system size), "
              + "to 3 decimals, at least 0.001."})
  String weight;

  @Option(names = "--reserve", defaultValue = "256MiB",
      description = "Free space each mountpath keeps; PUTs that would use it get 507 (default: ${DEFAULT-VALUE}).")
  String reserve;

  @Option(names = "--disk-threads", defaultValue = "0",
      description = "Threads for blocking disk work (default: 4 per core, at least 8).")
  int diskThreads;

  @Option(names = "--multipart-ttl", defaultValue = "7d", converter = DurationConverter.class,
      description = "Abort multipart uploads not completed within this time (default: ${DEFAULT-VALUE}).")
  Duration multipartTtl;

  @Option(names = "--capacity", defaultValue = "0",
      description = {"Capacity of each mountpath for the watermarks, e.g. 50GiB; 0 uses the file system's size "
          + "(default: ${DEFAULT-VALUE}).", "With a limit, used space is what Granary stores there (objects, work "
          + "files, multipart parts)."})
  String capacity;

  @Option(names = "--high-watermark", defaultValue = "90", paramLabel = "PCT",
      description = "Used percent of capacity above which cached remote objects are evicted (default: "
          + "${DEFAULT-VALUE}).")
  int highWatermark;

  @Option(names = "--low-watermark", defaultValue = "80", paramLabel = "PCT",
      description = "Used percent of capacity eviction brings a mountpath down to (default: ${DEFAULT-VALUE}).")
  int lowWatermark;

  @Option(names = "--full-watermark", paramLabel = "PCT",
      description = "Used percent of capacity above which PUTs and cold GETs get 507 (default: 95, or the high "
          + "watermark when that is higher).")
  Integer fullWatermark;

  @Option(names = "--dont-evict", defaultValue = "10m", converter = DurationConverter.class, paramLabel = "DURATION",
      description = "Objects read within this time are never evicted (default: ${DEFAULT-VALUE}).")
  Duration dontEvict;

  @Option(names = "--space-check-interval", defaultValue = "30s", converter = DurationConverter.class,
      paramLabel = "DURATION", description = "How often used space is measured (default: ${DEFAULT-VALUE}).")
  Duration spaceCheckInterval;

  @Option(names = "--cold-threads", defaultValue = "16",
      description = "Threads that fetch objects of remote buckets; each holds one remote connection (default: "
          + "${DEFAULT-VALUE}).")
  int coldThreads;

  @Option(names = "--cold-parallel-threshold", defaultValue = "64MiB",
      description = "Remote objects larger than this are fetched with parallel ranged reads; the first read "
          + "covers this many bytes (default: ${DEFAULT-VALUE}).")
  String coldParallelThreshold;

  @Option(names = "--cold-parallel-chunk", defaultValue = "16MiB",
      description = "Size of each ranged read of a parallel fetch, at least 1MiB (default: ${DEFAULT-VALUE}).")
  String coldParallelChunk;

  @Option(names = "--cold-parallel-streams", defaultValue = "4",
      description = "Ranged reads in flight per object of a parallel fetch (default: ${DEFAULT-VALUE}).")
  int coldParallelStreams;

  @Option(names = "--backend-read-timeout", defaultValue = "30s", converter = DurationConverter.class,
      paramLabel = "DURATION", description = "Longest silence from a remote store before a read is resumed or "
          + "failed (default: ${DEFAULT-VALUE}).")
  Duration backendReadTimeout;

  @Option(names = "--rebalance-streams", defaultValue = "16", paramLabel = "N",
      description = "Objects this target sends to other targets at once while rebalancing (default: ${DEFAULT-VALUE}).")
  int rebalanceStreams;

  @Option(names = "--rebalance-bandwidth", defaultValue = "32MiB", paramLabel = "BYTES",
      description = {"The most bytes per second this target sends while rebalancing, over all its streams, so "
          + "foreground reads keep their speed; 0 removes the cap (default: ${DEFAULT-VALUE}).",
          "Reads that bring an object from its previous owner (get-from-neighbor) are not capped."})
  String rebalanceBandwidth;

  @Option(names = "--neighbor-relay-size", defaultValue = "8MiB", paramLabel = "BYTES",
      description = {"While objects move here, a read of one not here yet that is at least this large is relayed "
          + "from the target still holding it (the first byte at once) while it moves; a smaller one is brought "
          + "here first, then served (default: ${DEFAULT-VALUE}); 0 relays every such read."})
  String neighborRelaySize;

  @Option(names = "--join-settle", defaultValue = "5s", converter = DurationConverter.class, paramLabel = "DURATION",
      description = {"At start, after its warm-up, the longest this target waits for its JIT compiler to go quiet "
          + "before it registers: a rebalance toward it starts then, and should not share the CPU with a compiling "
          + "JVM (default: ${DEFAULT-VALUE}); 0s registers at once."})
  Duration joinSettle;

  @Option(names = "--warm-up", arity = "1", defaultValue = "true", paramLabel = "BOOLEAN",
      description = {"At start, warm the request path (checksums, a burst of requests over loopback) and wait for the "
          + "JIT (--join-settle) before registering, so that a joining target's first reads do not run cold "
          + "(default: ${DEFAULT-VALUE}); false registers at once: for tests and laptops, not for a cluster under "
          + "load."})
  boolean warmUp;

  /** Cold-GET and space settings from the flags. */
  CacheConfig cacheConfig() {
    return CacheConfig.DEFAULTS.withSpace(ByteSize.parse(capacity), highWatermark, lowWatermark,
        fullWatermark != null ? fullWatermark : Math.max(CacheConfig.DEFAULT_FULL_WATERMARK, highWatermark),
        dontEvict, spaceCheckInterval)
        .withColdGet(coldThreads, ByteSize.parse(coldParallelThreshold), ByteSize.parse(coldParallelChunk),
            coldParallelStreams, backendReadTimeout);
  }

  @Override
  public Integer call() throws Exception {
    int cores = Runtime.getRuntime().availableProcessors();
    double w = TargetWeight.resolve(weight, mountpaths, ByteSize.parse(capacity));
    if (TargetWeight.AUTO.equalsIgnoreCase(weight.trim())) {
      log.info("node={} weight={} derived from the capacity of mountpaths {} (--weight auto)",
          node.id == null ? "-" : node.id, w, mountpaths);
    }
    TargetConfig cfg = new TargetConfig(node.id, node.host, port, node.publicUrl(port), mountpaths, primary, w,
        ByteSize.parse(reserve), node.ioThreads(), diskThreads > 0 ? diskThreads : Math.max(8, 4 * cores),
        node.httpLimits(), Duration.ofSeconds(10), multipartTtl, node.clusterSecret(), cacheConfig(),
        new RebalanceConfig(rebalanceStreams, ByteSize.parse(rebalanceBandwidth),
            ByteSize.parse(neighborRelaySize), joinSettle, warmUp), keys.credentials());
    Duration grace = node.shutdownGrace();
    NodeRunner.FatalSignal fatal = new NodeRunner.FatalSignal();
    return NodeRunner.run(TargetNode.start(cfg, fatal), node.parentPid, fatal, grace);
  }
}
