package io.granary.common.lifecycle;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * Waits, up to a limit, until the JIT compiler goes quiet. A warmed-up JVM keeps compiling for seconds what its
 * warm-up made hot: a joining target that registers at once starts its rebalance while its compiler threads take
 * most of two cores, and every node's foreground reads slow down (bench/rebalance.sh, p99 part, JFR: 1.5 s of
 * compilation in each of the rebalance's first two seconds on the joining target).
 */
public final class CompilerSettle {
  /** Quiet: the compiler spent less than this share of one CPU over the last window. */
  static final double QUIET_SHARE = 0.25;
  static final long WINDOW_MILLIS = 200;

  /** Sleeps; tests advance a clock instead. */
  @FunctionalInterface
  interface Sleeper {
    void sleep(long millis) throws InterruptedException;
  }

  private CompilerSettle() {}

  /**
   * Waits until the JIT is quiet or {@code max} has passed (at once for a zero or negative {@code max}, or a JVM
   * without compile-time accounting).
   *
   * @return milliseconds waited
   */
  public static long await(Duration max) throws InterruptedException {
    CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
    if (jit == null || !jit.isCompilationTimeMonitoringSupported()) {
      return 0;
    }
    return await(max, jit::getTotalCompilationTime, System::nanoTime, Thread::sleep);
  }

  /** {@link #await(Duration)} over a compile-time counter (ms), a clock (ns) and a sleeper. */
  static long await(Duration max, LongSupplier compileMillis, LongSupplier nanos, Sleeper sleeper)
      throws InterruptedException {
    long start = nanos.getAsLong();
    long deadline = start + Math.max(0, max.toNanos());
    long quietMillis = (long) (WINDOW_MILLIS * QUIET_SHARE);
    while (nanos.getAsLong() < deadline) {
      long before = compileMillis.getAsLong();
      sleeper.sleep(WINDOW_MILLIS);
      if (compileMillis.getAsLong() - before < quietMillis) {
        break;
      }
    }
    return (nanos.getAsLong() - start) / 1_000_000;
  }
}
