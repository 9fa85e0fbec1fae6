package io.granary.loader.mlperf;

import java.util.concurrent.Phaser;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * One emulated accelerator (a DLIO rank) for one epoch, on its own thread. It waits at the start barrier with the
 * others, starts its {@link ShardReaders}, then for each step: waits for a batch from its {@link SampleBuffer}
 * (load time), "computes" by sleeping the compute time (DLIO's emulation of the GPU), and waits at the step barrier
 * for every other accelerator (DLIO's {@code comm.barrier()} after each step, standing in for the allreduce). The
 * epoch's wall time runs from its first step's start to the end of its last barrier.
 *
 * <p>If the run is aborted (a GET failed), the accelerator stops at its next wait; {@link #result} is then null.
 */
final class Accelerator implements Runnable {
  private final int steps;
  private final int batch;
  private final long computeNanos;
  private final SampleBuffer buffer;
  private final ShardReaders readers;
  private final int readThreads;
  private final Phaser barrier;
  private final Consumer<String> abort;
  private volatile RankEpoch result;

  Accelerator(int steps, int batch, long computeNanos, SampleBuffer buffer, ShardReaders readers, int readThreads,
      Phaser barrier, Consumer<String> abort) {
    this.steps = steps;
    this.batch = batch;
    this.computeNanos = computeNanos;
    this.buffer = buffer;
    this.readers = readers;
    this.readThreads = readThreads;
    this.barrier = barrier;
    this.abort = abort;
  }

  /** The epoch's step times, or null if it did not finish. */
  RankEpoch result() {
    return result;
  }

  @Override
  public void run() {
    long[] load = new long[steps];
    long[] compute = new long[steps];
    try {
      if (barrier.arriveAndAwaitAdvance() < 0) {
        return;
      }
      long start = System.nanoTime();
      readers.start(readThreads);
      for (int s = 0; s < steps; s++) {
        long t0 = s == 0 ? start : System.nanoTime(); // starting the readers is the first step's load, as in DLIO
        buffer.take(batch);
        long t1 = System.nanoTime();
        sleepUntil(t1 + computeNanos);
        long t2 = System.nanoTime();
        load[s] = t1 - t0;
        compute[s] = t2 - t1;
        if (barrier.arriveAndAwaitAdvance() < 0) {
          return;
        }
      }
      result = new RankEpoch(System.nanoTime() - start, load, compute);
    } catch (RunAborted e) {
      abort.accept(e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      abort.accept("interrupted");
    } finally {
      buffer.close();
    }
  }

  /** Parks until the deadline: overshoots by the scheduler's wake-up latency (tens of microseconds), like sleep. */
  private static void sleepUntil(long deadline) throws InterruptedException {
    for (long left; (left = deadline - System.nanoTime()) > 0; ) {
      LockSupport.parkNanos(left);
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
    }
  }
}
