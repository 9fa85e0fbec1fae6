package io.granary.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.ClusterJson;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code granary cluster node ID [--wait-safe]}: one node's status; with {@code --wait-safe}, polls it until the
 * node may be stopped (maintenance, suspended) or its disks removed (decommissioned), the step an operator waits
 * for before touching the machine.
 */
@Command(name = "node", mixinStandardHelpOptions = true,
    description = "A node's state, its part in the rebalance, and whether it is safe to stop or to remove.")
final class NodeCommand implements Callable<Integer> {
  /** How often --wait-safe asks: the status asks the target, so not in a tight loop. */
  private static final Duration POLL = Duration.ofSeconds(1);

  @Mixin
  ClusterCommand.Endpoint endpoint = new ClusterCommand.Endpoint();

  @Parameters(index = "0", paramLabel = "ID", description = "Node id.")
  String node;

  @Option(names = "--wait-safe", description = {"Wait, showing progress, until the node is safe to remove "
      + "(decommissioned) or to stop (maintenance, suspended); exit 1 if --timeout passes first."})
  boolean waitSafe;

  @Option(names = "--timeout", defaultValue = "30m", converter = DurationConverter.class, paramLabel = "DURATION",
      description = "How long --wait-safe waits (default: ${DEFAULT-VALUE}).")
  Duration timeout;

  @Option(names = "--json", description = "Print the raw JSON status.")
  boolean json;

  @Override
  public Integer call() throws Exception {
    JsonNode s = waitSafe ? awaitSafe(status()) : status();
    if (json) {
      System.out.println(ClusterJson.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(s));
    } else {
      NodeStatusReport.print(s, System.out);
    }
    String flag = awaited(s.path("state").asText());
    if (waitSafe && !s.path(flag).asBoolean()) {
      System.err.printf("%s is not %s after %s%n", node, flag.replace('_', ' '), timeout);
      return 1;
    }
    return 0;
  }

  /**
   * The flag --wait-safe waits for in {@code state}: {@code safe_to_remove} for a leaving node, {@code safe_to_stop}
   * for one in maintenance; null when the state has nothing to wait for.
   */
  static String awaited(String state) {
    return switch (state) {
      case "decommissioning", "decommissioned" -> "safe_to_remove";
      case "maintenance", "suspended" -> "safe_to_stop";
      default -> null;
    };
  }

  /** Polls until the node is safe or the timeout passes; answers the last status. */
  private JsonNode awaitSafe(JsonNode first) throws Exception {
    ProgressPrinter line = new ProgressPrinter(true);
    long deadline = System.nanoTime() + timeout.toNanos();
    JsonNode s = first;
    while (true) {
      String state = s.path("state").asText();
      String flag = awaited(state);
      if (flag == null) {
        line.last(NodeStatusReport.line(s));
        throw new IllegalStateException(node + " is " + state + ": nothing to wait for (put it in maintenance or "
            + "decommission it first: granary cluster set-state)");
      }
      long left = deadline - System.nanoTime();
      if (s.path(flag).asBoolean() || left <= 0) {
        line.last(NodeStatusReport.line(s));
        return s;
      }
      line.update(NodeStatusReport.line(s));
      Thread.sleep(Math.min(POLL.toMillis(), Math.max(1, left / 1_000_000)));
      s = status();
    }
  }

  private JsonNode status() throws Exception {
    try {
      return endpoint.get("/v1/cluster/nodes/" + URLEncoder.encode(node, StandardCharsets.UTF_8));
    } catch (ClusterCommand.ApiError e) {
      throw e.status == 404 && !e.getMessage().contains("NodeNotFound")
          ? e.within("no node '" + node + "' in the cluster map") : e; // an older proxy's 404 names no node
    }
  }
}
