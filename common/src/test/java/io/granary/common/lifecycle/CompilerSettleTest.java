package io.granary.common.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The wait on a scripted compiler and clock: it ends at the first quiet window, or at the limit. */
class CompilerSettleTest {
  private final AtomicLong clockNanos = new AtomicLong();
  private final AtomicLong compiledMillis = new AtomicLong();

  /** Each window the compiler works {@code busyMillis[i]} ms (then as the last entry says). */
  private long await(Duration max, long... busyMillis) throws InterruptedException {
    AtomicLong window = new AtomicLong();
    return CompilerSettle.await(max, compiledMillis::get, clockNanos::get, millis -> {
      int i = (int) Math.min(window.getAndIncrement(), busyMillis.length - 1);
      compiledMillis.addAndGet(busyMillis[i]);
      clockNanos.addAndGet(millis * 1_000_000);
    });
  }

  @Test
  void endsAtTheFirstQuietWindow() throws InterruptedException {
    // Two CPUs compiling (400 ms per 200 ms window), then one, then a quiet window (below a quarter of one CPU).
    assertThat(await(Duration.ofSeconds(5), 400, 300, 200, 30, 400)).isEqualTo(4 * CompilerSettle.WINDOW_MILLIS);
  }

  @Test
  void givesUpAtTheLimit_whenTheCompilerNeverQuietens() throws InterruptedException {
    assertThat(await(Duration.ofSeconds(1), 400)).isEqualTo(1000);
  }

  @Test
  void aZeroLimit_doesNotWait() throws InterruptedException {
    assertThat(await(Duration.ZERO, 400)).isZero();
    assertThat(compiledMillis).hasValue(0);
  }
}
