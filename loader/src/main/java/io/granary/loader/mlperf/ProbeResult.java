package io.granary.loader.mlperf;

import io.granary.loader.report.OpSummary;
import java.util.List;

/**
 * One run with a given number of accelerators: the run itself, or one probe of {@code --search}.
 *
 * @param stepsPerEpoch steps of each accelerator in each epoch
 * @param epochs the metrics of the epochs that finished
 * @param summary their means (AU, samples/s, MiB/s) and whether the AU reached the threshold
 * @param seconds wall time of the run, generation excluded
 * @param gets the run's GETs (latency excludes time held back by a full prefetch buffer)
 * @param aborted why the run stopped early (a failed GET), or null
 */
public record ProbeResult(int accelerators, int stepsPerEpoch, List<AuCalculator.EpochMetrics> epochs,
    AuCalculator.Summary summary, double seconds, OpSummary gets, String aborted) {

  public ProbeResult {
    epochs = List.copyOf(epochs);
  }

  /** Finished every epoch and its mean AU reached the threshold. */
  public boolean pass() {
    return aborted == null && summary.pass();
  }
}
