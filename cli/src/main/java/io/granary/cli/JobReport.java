package io.granary.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;

/**
 * How one kind of job is shown: a progress line while it runs, its outcome when it ends, and its details. The
 * kinds' statuses differ (a prefetch fetches, a rebalance moves), so {@code granary job} picks the report by the
 * status's {@code kind}.
 */
interface JobReport {
  /** Failed names printed; the rest are counted. */
  int SHOW_FAILURES = 20;

  /** One line for a running job. */
  String progress(JsonNode job);

  /** Prints how the job ended; answers the exit code: 0 when it succeeded. */
  int outcome(JsonNode job, PrintStream out);

  /** Prints the job in detail: summary, one row per target, failures. */
  void details(JsonNode job, PrintStream out);

  /** The OBJECTS column of the job list: done/total. */
  String objects(JsonNode job);

  /** The report for {@code job}'s kind. */
  static JobReport of(JsonNode job) {
    return switch (job.path("kind").asText()) {
      case RebalanceReport.KIND -> new RebalanceReport();
      case MakeNCopiesReport.KIND -> new MakeNCopiesReport();
      case ScrubReport.KIND -> new ScrubReport();
      default -> new PrefetchReport();
    };
  }

  /**
   * Prints up to {@link #SHOW_FAILURES} of {@code failures} ({@code name}, {@code error}, {@code target}), then how
   * many of {@code total} were not shown and {@code more}, where to see them.
   */
  static void failures(JsonNode failures, boolean withTarget, long total, String more, PrintStream out) {
    int shown = 0;
    for (JsonNode f : failures) {
      if (shown == SHOW_FAILURES) {
        break;
      }
      shown++;
      out.println("  failed: " + f.path("name").asText() + ": " + f.path("error").asText()
          + (withTarget && f.hasNonNull("target") ? " (on " + f.path("target").asText() + ")" : ""));
    }
    if (total - shown > 0) {
      out.printf("  ... and %d more (%s)%n", total - shown, more);
    }
  }
}
