package io.granary.loader.mlperf;

/**
 * What one accelerator (a DLIO rank) recorded in one epoch: per step, the time it waited for its batch (load) and
 * the time it computed; and the epoch's wall time, from its first step's start to after its last step's barrier.
 * A step's "proc" time, DLIO's name for load plus compute, excludes the barrier wait, as in DLIO.
 *
 * @param wallNanos the epoch's wall time on this accelerator
 * @param loadNanos per step, waiting for the batch
 * @param computeNanos per step, the emulated compute
 */
public record RankEpoch(long wallNanos, long[] loadNanos, long[] computeNanos) {

  public RankEpoch {
    if (loadNanos.length != computeNanos.length) {
      throw new IllegalArgumentException("load and compute times differ in steps");
    }
  }

  public int steps() {
    return computeNanos.length;
  }

  /** DLIO's "proc" time of a step: from starting to load its batch to the end of its compute. */
  public long procNanos(int step) {
    return loadNanos[step] + computeNanos[step];
  }
}
