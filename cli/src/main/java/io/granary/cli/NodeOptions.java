package io.granary.cli;

import java.net.InetAddress;
import java.net.UnknownHostException;
import picocli.CommandLine.Option;

/** Options every node command (proxy, target) takes: where it listens and how others reach it. */
final class NodeOptions {

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

  /** The URL to advertise: --public-url, else http://HOST:PORT, with this host's address for a wildcard bind. */
  String publicUrl(int port) throws UnknownHostException {
    if (publicUrl != null) {
      return publicUrl;
    }
    return "0.0.0.0".equals(host) ? "http://" + InetAddress.getLocalHost().getHostAddress() + ":" + port : null;
  }

  int ioThreads() {
    return ioThreads > 0 ? ioThreads : Runtime.getRuntime().availableProcessors();
  }
}
