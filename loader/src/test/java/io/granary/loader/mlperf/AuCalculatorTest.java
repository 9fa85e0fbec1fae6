package io.granary.loader.mlperf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Hand-computed examples of DLIO's formulas (statscounter.py compute_metrics_train, end_train, end_run). */
class AuCalculatorTest {
  private static final long MS = 1_000_000;

  /** Loads 500/100/50 ms, computes 200 ms each, 1400 ms wall (150 ms of it at barriers). */
  private static final RankEpoch SLOW = rank(1400, new long[] {500, 100, 50}, new long[] {200, 200, 200});
  /** Loads 100/0/0 ms, computes 200 ms each, 700 ms wall. */
  private static final RankEpoch FAST = rank(700, new long[] {100, 0, 0}, new long[] {200, 200, 200});

  @Test
  void au_excludesTheFirstStep_fromComputeAndFromWallTime() {
    // window: steps 1 and 2, compute 400 ms; time = 1400 - proc(step 0) = 1400 - 700 = 700 ms
    assertThat(AuCalculator.au(SLOW)).isCloseTo(400.0 / 700, within(1e-12));
    // 400 / (700 - 300)
    assertThat(AuCalculator.au(FAST)).isCloseTo(1.0, within(1e-12));
  }

  @Test
  void samplesPerSecond_isTheWindowsSteps_overTheSameTime_timesBatch() {
    assertThat(AuCalculator.samplesPerSecond(SLOW, 10)).isCloseTo((3 - 1) / 0.7 * 10, within(1e-9));
    assertThat(AuCalculator.samplesPerSecond(FAST, 10)).isCloseTo((3 - 1) / 0.4 * 10, within(1e-9));
  }

  @Test
  void twoStepEpoch_hasTheThroughputOfItsWindow_notZero() {
    // step 1 alone is the window: 1 step of 10 samples over 1000 - proc(step 0) = 1000 - 600 = 400 ms
    RankEpoch twoSteps = rank(1000, new long[] {400, 100}, new long[] {200, 200});
    assertThat(AuCalculator.au(twoSteps)).isCloseTo(200.0 / 400, within(1e-12));
    assertThat(AuCalculator.samplesPerSecond(twoSteps, 10)).isCloseTo(1 / 0.4 * 10, within(1e-9));
  }

  @Test
  void epoch_meanAuOverAccelerators_sumOfThroughput_meanWaitOfWindowSteps() {
    AuCalculator.EpochMetrics e = AuCalculator.epoch(List.of(SLOW, FAST), 10);
    assertThat(e.au()).isCloseTo((400.0 / 700 + 1.0) / 2, within(1e-12));
    assertThat(e.samplesPerSecond()).isCloseTo(20 / 0.7 + 20 / 0.4, within(1e-9));
    assertThat(e.loadSecondsPerStep()).isCloseTo((0.100 + 0.050 + 0 + 0) / 4, within(1e-12));
  }

  @Test
  void summarize_meansOverEpochs_populationStdev_mibFromRecordSize_passAtThreshold() {
    List<AuCalculator.EpochMetrics> epochs = List.of(new AuCalculator.EpochMetrics(0.8, 40, 0),
        new AuCalculator.EpochMetrics(0.6, 20, 0));
    AuCalculator.Summary s = AuCalculator.summarize(epochs, 0.7, 1024 * 1024);
    assertThat(s.au()).isCloseTo(0.7, within(1e-12));
    assertThat(s.auStdev()).isCloseTo(0.1, within(1e-12));
    assertThat(s.samplesPerSecond()).isCloseTo(30, within(1e-12));
    assertThat(s.mibPerSecond()).isCloseTo(30, within(1e-12));
    assertThat(s.pass()).isTrue(); // mean AU >= threshold
    assertThat(AuCalculator.summarize(epochs, 0.71, 114_660).pass()).isFalse();
    assertThat(AuCalculator.summarize(epochs, 0.7, 114_660).mibPerSecond())
        .isCloseTo(30 * 114_660 / 1048576.0, within(1e-9));
  }

  @Test
  void degenerateEpochs_areZero_notNaN() {
    RankEpoch oneStep = rank(300, new long[] {100}, new long[] {200});
    assertThat(AuCalculator.au(oneStep)).isZero(); // nothing left in the window
    assertThat(AuCalculator.samplesPerSecond(oneStep, 10)).isZero();
    RankEpoch noCompute = rank(300, new long[] {100, 100, 100}, new long[] {0, 0, 0});
    assertThat(AuCalculator.au(noCompute)).isZero();
    assertThat(AuCalculator.summarize(List.of(), 0.9, 1).pass()).isFalse();
  }

  private static RankEpoch rank(long wallMs, long[] loadMs, long[] computeMs) {
    long[] load = new long[loadMs.length];
    long[] compute = new long[computeMs.length];
    for (int i = 0; i < load.length; i++) {
      load[i] = loadMs[i] * MS;
      compute[i] = computeMs[i] * MS;
    }
    return new RankEpoch(wallMs * MS, load, compute);
  }
}
