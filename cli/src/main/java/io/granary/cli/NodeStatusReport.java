package io.granary.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.Rebalance;
import java.io.PrintStream;
import java.util.Locale;

/**
 * One node's status ({@code GET /v1/cluster/nodes/ID}) as {@code granary cluster node} prints it: state and
 * placement, the target's part in the latest rebalance, and whether it is safe to stop or to remove.
 */
final class NodeStatusReport {
  private NodeStatusReport() {}

  static void print(JsonNode s, PrintStream out) {
    String id = s.path("id").asText();
    String state = s.path("state").asText();
    if (s.path("url").isMissingNode() && "decommissioned".equals(state)) {
      out.println(id + ": decommissioned, has left the cluster map");
    } else {
      out.printf("%s: %s, %s%s%s, %s%n", id, s.path("role").asText(), state,
          s.has("in_placement") ? (s.path("in_placement").asBoolean() ? ", in placement" : ", out of placement") : "",
          s.has("weight") ? ", weight " + s.path("weight").asText() : "", s.path("url").asText());
      if (s.hasNonNull("rebalance")) {
        out.printf("rebalance %s (%s): %s%n", s.path("rebalance").asText(), s.path("rebalance_state").asText(),
            part(s));
      }
      for (JsonNode f : s.path("progress").path("failures")) {
        out.println("  failed: " + f.path("object").asText() + ": " + f.path("error").asText());
      }
    }
    out.printf("safe to stop: %s, safe to remove: %s%n", yesNo(s.path("safe_to_stop")), yesNo(s.path("safe_to_remove")));
  }

  /** One line for a node being waited for: its state and its part in the rebalance. */
  static String line(JsonNode s) {
    String head = s.path("id").asText() + " " + s.path("state").asText();
    return s.hasNonNull("rebalance") ? head + ", " + s.path("rebalance").asText() + ": " + part(s) : head;
  }

  /** The target's part in the rebalance: what it sent of what it had to move, and what it still holds. */
  private static String part(JsonNode s) {
    JsonNode p = s.path("progress");
    if (!p.isObject()) {
      return "no progress (" + s.path("problem").asText("unknown") + ")";
    }
    if (!s.path("rebalance").asText().equals(Rebalance.JOB_PREFIX + p.path("rebalance").asLong())) {
      return "not started here yet; holds " + ProgressLine.bytes(p.path("held_bytes").asLong());
    }
    return String.format(Locale.ROOT, "%s, %d of %d sent (%s), %d received, %d failed; holds %s", p.path("state").asText(),
        p.path("sent").asLong(), p.path("to_move").asLong(), ProgressLine.bytes(p.path("bytes_sent").asLong()),
        p.path("received").asLong(), p.path("failed").asLong(),
        p.path("holds_objects").asBoolean() ? ProgressLine.bytes(p.path("held_bytes").asLong()) : "no objects");
  }

  private static String yesNo(JsonNode b) {
    return b.asBoolean() ? "yes" : "no";
  }
}
