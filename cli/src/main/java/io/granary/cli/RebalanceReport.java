package io.granary.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.Rebalance;
import java.io.PrintStream;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A rebalance ({@code rb-N}, as {@code GET /v1/jobs/rb-N} answers it) as {@code granary rebalance show},
 * {@code granary job show} and the {@code --wait} options print it: what moved of what is to move, rate, ETA, the
 * targets still waited for, failures, and each target's part.
 *
 * <p>A target counts the objects it has to move while it walks its mountpaths, so the total grows until every walk
 * is complete; only then does the progress line draw a bar.
 */
final class RebalanceReport implements JobReport {
  static final String KIND = "rebalance";

  @Override
  public String progress(JsonNode rb) {
    JsonNode o = rb.path("objects");
    long handled = handled(o);
    long toMove = o.path("to_move").asLong();
    boolean counted = walksComplete(rb);
    StringBuilder sb = new StringBuilder(rb.path("id").asText()).append(' ');
    if (counted && toMove > 0) {
      sb.append(ProgressLine.bar(handled, toMove)).append(handled).append('/').append(toMove).append(" objects");
    } else if (counted) {
      sb.append("nothing to move");
    } else {
      sb.append(handled).append(" objects (targets still counting)");
    }
    long bytesToMove = rb.path("bytes").path("to_move").asLong();
    sb.append(", ").append(ProgressLine.bytes(rb.path("bytes").path("moved").asLong()))
        .append(counted && bytesToMove > 0 ? " of " + ProgressLine.bytes(bytesToMove) : "").append(" moved");
    long failed = o.path("failed").asLong();
    if (failed > 0) {
      sb.append(", ").append(failed).append(" failed");
    }
    if (running(rb)) {
      sb.append(rateAndEta(rb));
    }
    int waiting = rb.path("waiting_for").size();
    if (running(rb) && waiting > 0) {
      sb.append(", waiting for ").append(waiting).append(waiting == 1 ? " target" : " targets");
    }
    return sb.toString();
  }

  @Override
  public int outcome(JsonNode rb, PrintStream out) {
    String id = rb.path("id").asText();
    String state = rb.path("state").asText();
    if ("superseded".equals(state)) {
      out.printf("rebalance %s superseded by %s%n", id, rb.path("superseded_by").asText());
      return 1;
    }
    JsonNode o = rb.path("objects");
    int attempt = rb.path("attempt").asInt(1);
    out.printf(Locale.ROOT, "rebalance %s %s%s: %d moved (%s), %d not needed, %d received, %d failed%n", id, state,
        attempt > 1 ? " (attempt " + attempt + ")" : "",
        o.path("moved").asLong(), ProgressLine.bytes(rb.path("bytes").path("moved").asLong()),
        o.path("not_needed").asLong(), o.path("received").asLong(), o.path("failed").asLong());
    if ("failed".equals(state)) {
      out.println("some objects could not be moved; reads still find them where they are. " + retry(rb));
    } else if ("aborted".equals(state)) {
      out.println("objects not moved yet stay where they are (reads still find them) until the next rebalance");
    }
    JobReport.failures(rb.path("failures"), true, o.path("failed").asLong(),
        "each target reports its first failures", out);
    return "succeeded".equals(state) ? 0 : 1;
  }

  @Override
  public void details(JsonNode rb, PrintStream out) {
    String id = rb.path("id").asText();
    if ("superseded".equals(rb.path("state").asText())) {
      String next = rb.path("superseded_by").asText();
      out.printf("rebalance %s: superseded by %s (granary rebalance show %s)%n", id, next, next);
      return;
    }
    out.printf("rebalance %s: %s, started %s%s%n", id, rb.path("state").asText(), time(rb.path("started")),
        rb.hasNonNull("finished") ? ", finished " + time(rb.path("finished")) : "");
    if (rb.path("attempt").asInt(1) > 1 || rb.hasNonNull("last_error")) {
      out.printf("attempt %d%s%n", rb.path("attempt").asInt(1), rb.hasNonNull("last_error")
          ? ", last error: " + rb.path("last_error").asText() : "");
    }
    if ("failed".equals(rb.path("state").asText())) {
      out.println(retry(rb));
    }
    JsonNode o = rb.path("objects");
    boolean counted = walksComplete(rb);
    out.printf("objects: %d of %d moved%s, %d not needed, %d failed, %d received%n", o.path("moved").asLong(),
        o.path("to_move").asLong(), counted ? "" : " (targets still counting)", o.path("not_needed").asLong(),
        o.path("failed").asLong(), o.path("received").asLong());
    out.printf("bytes:   %s of %s moved%s%n", ProgressLine.bytes(rb.path("bytes").path("moved").asLong()),
        ProgressLine.bytes(rb.path("bytes").path("to_move").asLong()), running(rb) ? rateAndEta(rb) : "");
    if (rb.path("waiting_for").size() > 0) {
      List<String> waiting = new ArrayList<>();
      rb.path("waiting_for").forEach(w -> waiting.add(w.asText()));
      out.println("waiting for: " + String.join("; ", waiting));
    }
    String row = "%-12s %-12s %-8s %-8s %-11s %-9s %-7s %s%n";
    out.printf(row, "TARGET", "STATE", "TO-MOVE", "SENT", "BYTES-SENT", "RECEIVED", "FAILED", "HOLDS");
    long n = Rebalance.idOf(id);
    for (Map.Entry<String, JsonNode> e : (Iterable<Map.Entry<String, JsonNode>>) rb.path("targets")::fields) {
      JsonNode t = e.getValue();
      String state = t.path("rebalance").asLong() == n ? t.path("state").asText() : "not started";
      out.printf(row, e.getKey(), state, t.path("to_move").asLong(), t.path("sent").asLong(),
          ProgressLine.bytes(t.path("bytes_sent").asLong()), t.path("received").asLong(), t.path("failed").asLong(),
          ProgressLine.bytes(t.path("held_bytes").asLong()));
    }
    JobReport.failures(rb.path("failures"), true, o.path("failed").asLong(),
        "each target reports its first failures", out);
  }

  @Override
  public String objects(JsonNode rb) {
    JsonNode o = rb.path("objects");
    return o.isMissingNode() ? "-" : handled(o) + "/" + o.path("to_move").asLong();
  }

  /** What follows a failed rebalance: the primary's retry, or one by hand. */
  private static String retry(JsonNode rb) {
    return rb.hasNonNull("next_attempt")
        ? "the primary retries it by itself at " + time(rb.path("next_attempt")) + " (attempt "
            + (rb.path("attempt").asInt(1) + 1) + ")"
        : "no automatic retry is left: granary rebalance start tries again once the cause is fixed";
  }

  /** ", 1.2 MiB/s, ETA 0:05": the rate, only meaningful while it runs, and the ETA when every target has one. */
  private static String rateAndEta(JsonNode rb) {
    return ", " + ProgressLine.bytes((long) rb.path("bytes_per_second").asDouble()) + "/s"
        + (rb.hasNonNull("eta_seconds") ? ", ETA " + ProgressLine.duration(rb.path("eta_seconds").asLong()) : "");
  }

  /** Objects a rebalance is done with: moved, not needed by their owner, or failed. */
  private static long handled(JsonNode objects) {
    return objects.path("moved").asLong() + objects.path("not_needed").asLong() + objects.path("failed").asLong();
  }

  private static boolean running(JsonNode rb) {
    return "running".equals(rb.path("state").asText());
  }

  /** Whether every target has walked all it holds for this rebalance, so {@code to_move} is the final total. */
  static boolean walksComplete(JsonNode rb) {
    long n = Rebalance.idOf(rb.path("id").asText());
    JsonNode targets = rb.path("targets");
    if (targets.isEmpty()) {
      return !running(rb);
    }
    for (JsonNode t : targets) {
      if (t.path("rebalance").asLong() != n || !t.path("walk_complete").asBoolean()) {
        return false;
      }
    }
    return true;
  }

  /** An API timestamp to the second: the nanoseconds the API keeps are noise on a terminal. */
  static String time(JsonNode ts) {
    try {
      return Instant.parse(ts.asText()).truncatedTo(ChronoUnit.SECONDS).toString();
    } catch (DateTimeParseException e) {
      return ts.asText("-");
    }
  }
}
