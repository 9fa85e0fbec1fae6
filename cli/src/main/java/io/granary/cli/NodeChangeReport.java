package io.granary.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.Rebalance;
import java.io.PrintStream;

/**
 * What a change of a node (its state or weight) did, read from the cluster map the primary answers the change
 * with: the node's new state and what it means, and the rebalance that moves objects because of it.
 */
final class NodeChangeReport {
  private NodeChangeReport() {}

  static void print(JsonNode map, String id, PrintStream out) {
    JsonNode n = map.path("targets").has(id) ? map.path("targets").path(id) : map.path("proxies").path(id);
    String state = n.path("state").asText();
    if (n.isMissingNode()) {
      boolean retired = false;
      for (JsonNode r : map.path("retired")) {
        retired |= r.asText().equals(id);
      }
      out.println(id + (retired ? " was decommissioned and has left the map" : " is not in the map"));
    } else {
      out.printf("%s: %s, weight %s; %s%n", id, state, n.path("weight").asText(), meaning(state));
    }
    JsonNode rb = map.path("rebalance");
    if ("running".equals(rb.path("state").asText())) {
      String rbId = Rebalance.JOB_PREFIX + rb.path("id").asLong();
      out.printf("rebalance %s is running; follow it with: granary rebalance show %s --wait%n", rbId, rbId);
    }
    if ("maintenance".equals(state)) {
      out.printf("wait until %s may be stopped with: granary cluster node %s --wait-safe%n", id, id);
    } else if ("decommissioning".equals(state)) {
      out.printf("wait until %s's disks may be removed with: granary cluster node %s --wait-safe%n", id, id);
    }
  }

  /** What a node state means for placement and for the node's objects. */
  static String meaning(String state) {
    return switch (state) {
      case "joining" -> "a new target receiving the cluster metadata; out of placement until then";
      case "active" -> "in placement";
      case "offline" -> "not answering health checks; it keeps its place and its objects answer 503";
      case "suspended" -> "it keeps its place, its objects answer 503 until it is active again; safe to stop now";
      case "maintenance" -> "out of placement; its objects move to the other targets";
      case "decommissioning" -> "out of placement; its objects move off, then it leaves the map";
      default -> state;
    };
  }
}
