package io.granary.cli;

import com.sun.management.UnixOperatingSystemMXBean;
import io.granary.common.config.ByteSize;
import io.granary.common.http.HttpLimits;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.net.UnknownHostException;
import picocli.CommandLine.Option;

/** Options every node command (proxy, target) takes: where it listens and how others reach it. */
final class NodeOptions {

  @Option(names = "--config", paramLabel = "FILE", defaultValue = "${env:GRANARY_CONFIG}",
      description = {"YAML file of settings: any option of this command by its name without the dashes, e.g. "
          + "'port: 51080' (env GRANARY_CONFIG; docs/config.md).",
          "A flag wins over its environment variable, which wins over the file, which wins over the default."})
  Path config;

  @Option(names = "--shutdown-grace", defaultValue = "30s", converter = DurationConverter.class,
      paramLabel = "DURATION",
      description = {"On SIGTERM: readiness turns 503, the listener stops accepting and requests in flight get this "
          + "long to finish before the node closes and exits 0 (default: ${DEFAULT-VALUE}).",
          "A target first asks the primary for a short maintenance without rebalance and is active again when it "
              + "restarts; 0s stops at once."})
  Duration shutdownGrace;

  @Option(names = "--id", description = "Node id (default: the persisted one, else generated).")
  String id;

  @Option(names = "--host", defaultValue = "${env:GRANARY_HOST:-0.0.0.0}",
      description = "Address to bind (default: ${DEFAULT-VALUE}; env GRANARY_HOST).")
  String host;

  @Option(names = "--public-url", defaultValue = "${env:GRANARY_PUBLIC_URL}",
      description = "URL clients and peers use to reach this node (default: http://HOST:PORT; env GRANARY_PUBLIC_URL).")
  String publicUrl;

  @Option(names = "--io-threads", defaultValue = "0", description = "Event-loop threads (default: number of cores).")
  int ioThreads;

  @Option(names = "--exit-with-parent", hidden = true, defaultValue = "0")
  long parentPid;

  @Option(names = "--cluster-secret-file",
      description = {"File whose first line is the cluster secret (at least 16 characters). Nodes sign requests to",
          "each other with it and targets refuse unsigned ones. Env GRANARY_CLUSTER_SECRET works too; without",
          "either the cluster runs without intra-cluster authentication."})
  Path clusterSecretFile;

  @Option(names = "--head-timeout", defaultValue = "30s", converter = DurationConverter.class, paramLabel = "DURATION",
      description = "A request head (request line and headers) must arrive whole within this time of its first byte "
          + "(of the accept, for a new connection), else 408 and close (default: ${DEFAULT-VALUE}).")
  Duration headTimeout;

  @Option(names = "--body-timeout", defaultValue = "60s", converter = DurationConverter.class, paramLabel = "DURATION",
      description = {"A request body that brings no bytes for this long is aborted (408, close; an upload leaves "
          + "nothing and gives back its space) (default: ${DEFAULT-VALUE}).",
          "It is also the window over which --min-body-rate is measured."})
  Duration bodyTimeout;

  @Option(names = "--min-body-rate", defaultValue = "500", paramLabel = "BYTES",
      description = {"Bytes per second a request body must average over each --body-timeout window, else it is "
          + "aborted like a stalled one (a slowloris trickle); 0 turns the check off (default: ${DEFAULT-VALUE}).",
          "Sizes as elsewhere: 500, 1KiB."})
  String minBodyRate;

  @Option(names = "--idle-timeout", defaultValue = "5m", converter = DurationConverter.class, paramLabel = "DURATION",
      description = "Close a connection with no bytes either way for this long: a kept-alive connection between "
          + "requests, or an answer the client stopped reading (default: ${DEFAULT-VALUE}).")
  Duration idleTimeout;

  @Option(names = "--max-connections", paramLabel = "N",
      description = {"Connections served at once (default: 4096, or half the open-file limit when lower).",
          "Beyond it a reserve (N/16, at least 32) serves only requests signed by another node of the cluster and "
              + "answers others 503 with Retry-After; beyond the reserve connections are closed at accept."})
  Integer maxConnections;

  @Option(names = "--send-buffer", defaultValue = "128KiB", paramLabel = "BYTES",
      description = {"Socket send buffer of each client connection (SO_SNDBUF); 0 leaves it to the kernel's "
          + "autotuning (default: ${DEFAULT-VALUE}).",
          "128KiB served 10 MiB objects 1.5-1.8x faster than autotuning on loopback; across a network a connection "
              + "carries at most one buffer per round trip, so raise it for few connections over a long path."})
  String sendBuffer;

  /** The HTTP listener's limits from the flags; throws IllegalArgumentException for impossible values. */
  HttpLimits httpLimits() {
    int max = maxConnections != null ? maxConnections : HttpLimits.defaultMaxConnections(maxFileDescriptors());
    long sndbuf = ByteSize.parse(sendBuffer);
    if (sndbuf > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("--send-buffer must be below 2GiB, got " + sendBuffer);
    }
    return new HttpLimits(headTimeout, bodyTimeout, idleTimeout, max, ByteSize.parse(minBodyRate), (int) sndbuf);
  }

  /** This process's open-file limit, or -1 where the JVM cannot tell. */
  private static long maxFileDescriptors() {
    return ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean unix
        ? unix.getMaxFileDescriptorCount() : -1;
  }

  /** The cluster secret from --cluster-secret-file or GRANARY_CLUSTER_SECRET, or null. */
  String clusterSecret() throws IOException {
    String s = clusterSecretFile != null
        ? Files.readAllLines(clusterSecretFile).stream().findFirst().orElse("")
        : System.getenv("GRANARY_CLUSTER_SECRET");
    if (s == null || s.isBlank()) {
      if (clusterSecretFile != null) {
        throw new IllegalArgumentException("cluster secret file " + clusterSecretFile + " is empty");
      }
      return null;
    }
    if (s.trim().length() < 16) {
      throw new IllegalArgumentException("the cluster secret must be at least 16 characters");
    }
    return s.trim();
  }

  /** The URL to advertise: --public-url, else http://HOST:PORT, with this host's address for a wildcard bind. */
  String publicUrl(int port) throws UnknownHostException {
    if (publicUrl != null) {
      return publicUrl;
    }
    return "0.0.0.0".equals(host) ? "http://" + InetAddress.getLocalHost().getHostAddress() + ":" + port : null;
  }

  /** The shutdown grace; throws IllegalArgumentException when negative. */
  Duration shutdownGrace() {
    if (shutdownGrace.isNegative()) {
      throw new IllegalArgumentException("--shutdown-grace must be 0s or more, got " + shutdownGrace);
    }
    return shutdownGrace;
  }

  int ioThreads() {
    return ioThreads > 0 ? ioThreads : Runtime.getRuntime().availableProcessors();
  }
}
