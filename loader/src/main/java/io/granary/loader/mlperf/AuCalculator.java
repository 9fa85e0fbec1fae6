package io.granary.loader.mlperf;

import java.util.List;

/**
 * Accelerator utilisation (AU) and throughput exactly as DLIO computes them ({@code utils/statscounter.py},
 * {@code compute_metrics_train}, {@code end_train}, {@code end_run}); pure functions of recorded step times.
 *
 * <ul>
 *   <li>Per accelerator and epoch: the steps in the metric window are all but the first
 *       ({@code metric_exclude_start_steps = 1}) and none at the end ({@code metric_exclude_end_steps = 0}).
 *       {@code AU = sum(compute of the window) / (wall time - proc time of the excluded steps)}, 0 when nothing was
 *       computed. Throughput is {@code (steps in the window) / that same time * batch} samples/s. Here Granary
 *       departs from DLIO, which divides {@code steps - 2} whatever the window: that is 0 samples/s for an epoch of
 *       two steps (the searches' short probes) next to a real AU, and one step short of the steps the AU counts
 *       otherwise; with the window's own steps, AU and throughput describe the same steps.</li>
 *   <li>Per epoch: AU is the mean over accelerators (DLIO's allreduce divided by the ranks; the step-weighted mean
 *       over a rank's checkpoint blocks is its one block here), throughput the sum over accelerators.</li>
 *   <li>Per run: the means over epochs (and the population standard deviation of the epochs' AU). It passes when
 *       the mean AU reaches the threshold. MiB/s is samples/s times the mean sample size over 1024².</li>
 * </ul>
 */
public final class AuCalculator {
  /** DLIO's default {@code metric_exclude_start_steps}. */
  public static final int EXCLUDE_START_STEPS = 1;
  /** DLIO's default {@code metric_exclude_end_steps}. */
  public static final int EXCLUDE_END_STEPS = 0;

  private AuCalculator() {}

  /** One epoch, all accelerators: mean AU, total samples/s, and the mean wait for a batch over window steps. */
  public record EpochMetrics(double au, double samplesPerSecond, double loadSecondsPerStep) {}

  /** A run: means over its epochs. */
  public record Summary(double au, double auStdev, double samplesPerSecond, double mibPerSecond, boolean pass) {}

  /** AU of one accelerator in one epoch, as a fraction. */
  public static double au(RankEpoch r) {
    long compute = 0;
    for (int s = EXCLUDE_START_STEPS; s <= lastMetricStep(r); s++) {
      compute += r.computeNanos()[s];
    }
    double time = metricNanos(r);
    return compute == 0 || time <= 0 ? 0 : compute / time;
  }

  /** Samples per second of one accelerator in one epoch. */
  public static double samplesPerSecond(RankEpoch r, int batch) {
    double time = metricNanos(r);
    int window = lastMetricStep(r) - EXCLUDE_START_STEPS + 1;
    return time <= 0 ? 0 : Math.max(0, window) / (time / 1e9) * batch;
  }

  public static EpochMetrics epoch(List<RankEpoch> accelerators, int batch) {
    double au = 0;
    double rate = 0;
    double load = 0;
    long loadSteps = 0;
    for (RankEpoch r : accelerators) {
      au += au(r);
      rate += samplesPerSecond(r, batch);
      for (int s = EXCLUDE_START_STEPS; s <= lastMetricStep(r); s++) {
        load += r.loadNanos()[s] / 1e9;
        loadSteps++;
      }
    }
    int n = accelerators.size();
    return new EpochMetrics(n == 0 ? 0 : au / n, rate, loadSteps == 0 ? 0 : load / loadSteps);
  }

  public static Summary summarize(List<EpochMetrics> epochs, double threshold, long recordBytes) {
    if (epochs.isEmpty()) {
      return new Summary(0, 0, 0, 0, false);
    }
    double au = 0;
    double rate = 0;
    for (EpochMetrics e : epochs) {
      au += e.au();
      rate += e.samplesPerSecond();
    }
    au /= epochs.size();
    rate /= epochs.size();
    double var = 0;
    for (EpochMetrics e : epochs) {
      var += (e.au() - au) * (e.au() - au);
    }
    return new Summary(au, Math.sqrt(var / epochs.size()), rate, rate * recordBytes / (1024.0 * 1024.0),
        au >= threshold);
  }

  /** The last step of the metric window (DLIO's {@code metric_end_step}). */
  private static int lastMetricStep(RankEpoch r) {
    return r.steps() - 1 - EXCLUDE_END_STEPS;
  }

  /** Wall time minus the proc time of the steps outside the window. */
  private static double metricNanos(RankEpoch r) {
    double t = r.wallNanos();
    for (int s = 0; s < Math.min(EXCLUDE_START_STEPS, r.steps()); s++) {
      t -= r.procNanos(s);
    }
    for (int s = Math.max(lastMetricStep(r) + 1, EXCLUDE_START_STEPS); s < r.steps(); s++) {
      t -= r.procNanos(s);
    }
    return t;
  }
}
