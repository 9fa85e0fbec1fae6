package io.granary.loader.mlperf;

import io.granary.loader.report.OpSummary;
import java.util.List;

/**
 * What an MLPerf-style command produced.
 *
 * @param accelerators the count run, or with {@code --search} the most that passed (0: none did)
 * @param reported the run whose AU and throughput are the result: the run itself, the best probe, or (when no
 *     count passed) the smallest probe
 * @param probes every run, in order (one without {@code --search})
 * @param searchLimit the largest count the search could try (0 without {@code --search})
 * @param atLimit with {@code --search}: the limit itself passed, so more accelerators might
 * @param gets every GET of every run, latency merged; its seconds are {@code seconds}
 * @param seconds wall time of the runs, generation excluded
 */
public record MlperfResult(MlperfOptions options, Dataset dataset, int accelerators, ProbeResult reported,
    List<ProbeResult> probes, int searchLimit, boolean atLimit, OpSummary gets, double seconds) {

  public MlperfResult {
    probes = List.copyOf(probes);
  }
}
