package io.granary.loader.report;

import java.io.PrintStream;
import java.util.Locale;

/**
 * The human-readable output, aisloader's columns: a row per operation every interval with the interval's figures
 * and, in parentheses, the run's so far; then a summary table of totals. Latencies are in milliseconds.
 */
public final class StatsTable {
  private static final String FORMAT = "%-8s %-4s %-18s %-22s %-38s %-26s %s%n";

  private final PrintStream out;

  public StatsTable(PrintStream out) {
    this.out = out;
  }

  public void header() {
    out.printf(Locale.ROOT, FORMAT, "TIME", "OP", "COUNT (TOTAL)", "SIZE (TOTAL)",
        "LATENCY ms min/avg/p50/p99/max", "THROUGHPUT (AVG)", "ERRORS (TOTAL)");
  }

  /** One interval row; {@code total} is the run so far. */
  public void row(String time, OpSummary interval, OpSummary total) {
    out.printf(Locale.ROOT, FORMAT, time, interval.op().toUpperCase(Locale.ROOT),
        interval.count() + " (" + total.count() + ")",
        bytes(interval.bytes()) + " (" + bytes(total.bytes()) + ")", latencies(interval),
        bytes(interval.throughput()) + "/s (" + bytes(total.throughput()) + "/s)",
        interval.errors() == 0 && total.errors() == 0 ? "-" : interval.errors() + " (" + total.errors() + ")");
  }

  /** The final table: totals per operation over the whole run. */
  public void summary(RunResult r) {
    out.printf(Locale.ROOT, "Actual run duration: %.2fs%n", r.durationSeconds());
    out.printf(Locale.ROOT, "%-4s %-10s %-12s %-38s %-14s %-10s %-8s %s%n", "OP", "COUNT", "SIZE",
        "LATENCY ms min/avg/p50/p99/max", "THROUGHPUT", "OPS/s", "ERRORS", "VERIFIED");
    for (OpSummary s : r.ops().values()) {
      out.printf(Locale.ROOT, "%-4s %-10d %-12s %-38s %-14s %-10.1f %-8s %s%n", s.op().toUpperCase(Locale.ROOT),
          s.count(), bytes(s.bytes()), latencies(s), bytes(s.throughput()) + "/s", s.opsPerSecond(),
          s.errors() == 0 ? "-" : Long.toString(s.errors()), s.op().equals("get") ? Long.toString(s.verified()) : "");
    }
  }

  static String latencies(OpSummary s) {
    return ms(s.min()) + "/" + ms(Math.round(s.mean())) + "/" + ms(s.percentile(50)) + "/" + ms(s.percentile(99))
        + "/" + ms(s.max());
  }

  static String ms(long micros) {
    return String.format(Locale.ROOT, micros < 10_000 ? "%.2f" : "%.0f", micros / 1000.0);
  }

  /** Binary units, e.g. {@code 1.5MiB}. */
  public static String bytes(double n) {
    String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (n >= 1024 && u < units.length - 1) {
      n /= 1024;
      u++;
    }
    return u == 0 ? String.format(Locale.ROOT, "%.0fB", n) : String.format(Locale.ROOT, "%.2f%s", n, units[u]);
  }
}
