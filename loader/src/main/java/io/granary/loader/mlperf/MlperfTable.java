package io.granary.loader.mlperf;

import io.granary.loader.report.OpSummary;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/**
 * The human-readable output of an MLPerf-style run: a row per epoch and per run (or probe), DLIO's figures: AU in
 * percent, samples/s and MiB/s summed over accelerators, plus the mean wait for a batch, the GETs and errors.
 */
final class MlperfTable {
  private static final String FORMAT = "%-6s %-6s %-6s %-8s %-11s %-10s %-13s %-7s %-7s %s%n";

  private final PrintStream out;

  MlperfTable(PrintStream out) {
    this.out = out;
  }

  void header() {
    out.printf(Locale.ROOT, FORMAT, "ACCEL", "EPOCH", "STEPS", "AU %", "SAMPLES/s", "MiB/s", "WAIT ms/step", "GETS",
        "ERRORS", "TIME");
  }

  void epoch(int accelerators, int epoch, int steps, AuCalculator.EpochMetrics m, long recordBytes, OpSummary gets,
      double seconds) {
    out.printf(Locale.ROOT, FORMAT, accelerators, epoch, steps, pct(m.au()), num(m.samplesPerSecond()),
        num(m.samplesPerSecond() * recordBytes / (1024.0 * 1024.0)), num(m.loadSecondsPerStep() * 1000),
        gets.count(), gets.errors() == 0 ? "-" : Long.toString(gets.errors()), secs(seconds));
  }

  void probe(ProbeResult r, double threshold) {
    AuCalculator.Summary s = r.summary();
    String verdict = r.aborted() != null ? "ABORTED: " + r.aborted()
        : (s.pass() ? "PASS" : "FAIL") + " (AU " + (s.pass() ? ">= " : "< ") + pct(threshold) + "%)";
    out.printf(Locale.ROOT, FORMAT, r.accelerators(), "mean", r.stepsPerEpoch(), pct(s.au()),
        num(s.samplesPerSecond()), num(s.mibPerSecond()), "", r.gets().count(),
        r.gets().errors() == 0 ? "-" : Long.toString(r.gets().errors()), secs(r.seconds()) + "  " + verdict);
  }

  /** The probes of a search in the order they ran, e.g. {@code 1 PASS, 2 PASS, 4 FAIL, 3 PASS}. */
  void search(List<ProbeResult> probes) {
    StringBuilder b = new StringBuilder("Search:");
    for (int i = 0; i < probes.size(); i++) {
      ProbeResult p = probes.get(i);
      b.append(i == 0 ? " " : ", ").append(p.accelerators()).append(p.pass() ? " PASS" : " FAIL");
    }
    out.println(b);
  }

  static String pct(double fraction) {
    return String.format(Locale.ROOT, "%.2f", fraction * 100);
  }

  static String num(double v) {
    return String.format(Locale.ROOT, "%.1f", v);
  }

  static String secs(double s) {
    return String.format(Locale.ROOT, "%.2fs", s);
  }
}
