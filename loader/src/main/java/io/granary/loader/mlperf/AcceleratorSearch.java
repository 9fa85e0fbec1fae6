package io.granary.loader.mlperf;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * {@code --search}: the most accelerators whose run reaches the AU threshold, the figure MLPerf Storage submitters
 * report. Starting from a count, it doubles while runs pass (or halves while they fail) until one passing and one
 * failing count bracket the answer, then bisects between them: about {@code 2 log2(answer)} probes.
 *
 * <p>It assumes AU does not rise with more accelerators. Real runs are noisy near the threshold, so a count just
 * above a reported best may pass on another try; every probe is reported so that can be seen. Pure: the probes are
 * a function passed in (each a short run in practice, a table in tests).
 */
public final class AcceleratorSearch {
  private AcceleratorSearch() {}

  /** Runs (probes) one accelerator count. */
  @FunctionalInterface
  public interface Probe<T> {
    T run(int accelerators) throws Exception;
  }

  /**
   * @param best the most accelerators that passed; 0 if none did
   * @param probes every probe, in the order they ran
   * @param atLimit the largest count allowed passed, so more accelerators might pass too
   */
  public record Outcome<T>(int best, List<T> probes, boolean atLimit) {}

  /** Searches counts 1 to {@code max} (at least 1), starting at {@code start}. */
  public static <T> Outcome<T> search(int start, int max, Probe<T> probe, Predicate<T> passes) throws Exception {
    if (max < 1) {
      throw new IllegalArgumentException("max must be at least 1");
    }
    List<T> probes = new ArrayList<>();
    int lo = 0; // the largest count known to pass
    int hi = max + 1; // the smallest count known to fail
    int n = Math.min(Math.max(start, 1), max);
    while (true) {
      T r = probe.run(n);
      probes.add(r);
      if (passes.test(r)) {
        lo = n;
      } else {
        hi = n;
      }
      if (hi - lo <= 1) {
        break;
      }
      if (hi == max + 1) {
        n = (int) Math.min(2L * lo, max); // nothing failed yet: double
      } else if (lo == 0) {
        n = Math.max(1, hi / 2); // nothing passed yet: halve
      } else {
        n = lo + (hi - lo) / 2; // bracketed: bisect
      }
    }
    return new Outcome<>(lo, probes, lo == max);
  }
}
