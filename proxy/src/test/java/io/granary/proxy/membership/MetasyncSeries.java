package io.granary.proxy.membership;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The figures of one side of {@link MetasyncBench} (the pusher, or the reference client) over its rounds: round 0
 * on fresh connections, the following ones on open connections. Test scope, not the product.
 */
final class MetasyncSeries {
  private final double[] wall;
  private final double[] cpu;
  /** Seconds after the round's start at which each node answered, over the following rounds. */
  private final List<Double> answers = new ArrayList<>();

  MetasyncSeries(int rounds) {
    wall = new double[rounds];
    cpu = new double[rounds];
  }

  void add(int round, double wallSeconds, double cpuSeconds) {
    wall[round] = wallSeconds;
    cpu[round] = cpuSeconds;
  }

  /** Records when a node answered; round 0 (fresh connections) is reported apart, so its answers are not. */
  void answered(int round, double seconds) {
    if (round > 0) {
      answers.add(seconds);
    }
  }

  double wall(int round) {
    return wall[round];
  }

  double cpu(int round) {
    return cpu[round];
  }

  /** Median wall seconds of the following rounds. */
  double median() {
    return median(following(wall));
  }

  /** Median CPU seconds of the following rounds. */
  double cpuMedian() {
    return median(following(cpu));
  }

  /** The slowest round, the first included. */
  double max() {
    return Arrays.stream(wall).max().orElse(Double.NaN);
  }

  /**
   * Wall seconds of the first round and of the following ones (median, max), per node; CPU seconds of the whole
   * process (sender and receivers) in the following rounds; when nodes answered; MB/s of bodies sent.
   */
  String json(int nodes, int bodyBytes) {
    double median = median();
    double[] a = answers.stream().mapToDouble(Double::doubleValue).toArray();
    return String.format(Locale.ROOT, "{\"first_s\":%.3f,\"median_s\":%.3f,\"max_s\":%.3f,\"per_node_us\":%.1f,"
            + "\"cpu_median_s\":%.3f,\"cpu_per_node_us\":%.1f,\"node_answer_p50_s\":%.3f,"
            + "\"node_answer_p99_s\":%.3f,\"mb_s\":%.1f}",
        wall[0], median, Arrays.stream(following(wall)).max().orElse(Double.NaN), median / nodes * 1e6, cpuMedian(),
        cpuMedian() / nodes * 1e6, percentile(a, 0.50), percentile(a, 0.99),
        (double) bodyBytes * nodes / median / 1e6);
  }

  private static double[] following(double[] v) {
    return Arrays.copyOfRange(v, 1, v.length);
  }

  static double median(double[] v) {
    return percentile(v, 0.5);
  }

  /** Nearest-rank percentile of {@code v} (not modified). */
  static double percentile(double[] v, double p) {
    if (v.length == 0) {
      return Double.NaN;
    }
    double[] sorted = v.clone();
    Arrays.sort(sorted);
    return sorted[Math.min(sorted.length - 1, Math.max(0, (int) Math.ceil(p * sorted.length) - 1))];
  }
}
