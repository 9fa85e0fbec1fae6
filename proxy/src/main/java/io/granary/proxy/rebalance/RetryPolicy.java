package io.granary.proxy.rebalance;

import java.time.Duration;

/**
 * When the primary retries a failed rebalance by itself: after {@code firstDelay}, doubling per failed attempt up to
 * {@code maxDelay}, for at most {@code attempts} attempts in all (the first included; 1 turns retries off). The
 * delay has a floor of one second, so a rebalance that fails at once can never be retried in a tight loop.
 *
 * @param firstDelay the wait after the first failed attempt ({@code --rebalance-retry-delay})
 * @param maxDelay the longest wait between two attempts ({@code --rebalance-retry-max-delay})
 * @param attempts attempts in all before the primary gives up ({@code --rebalance-attempts})
 */
public record RetryPolicy(Duration firstDelay, Duration maxDelay, int attempts) {
  private static final Duration FLOOR = Duration.ofSeconds(1); // before DEFAULTS: its constructor reads it
  public static final RetryPolicy DEFAULTS = new RetryPolicy(Duration.ofSeconds(10), Duration.ofMinutes(5), 8);

  public RetryPolicy {
    if (firstDelay == null || firstDelay.compareTo(FLOOR) < 0) {
      throw new IllegalArgumentException("--rebalance-retry-delay must be at least 1s, got " + firstDelay);
    }
    if (maxDelay == null || maxDelay.compareTo(firstDelay) < 0) {
      throw new IllegalArgumentException("--rebalance-retry-max-delay must be at least --rebalance-retry-delay ("
          + firstDelay + "), got " + maxDelay);
    }
    if (attempts < 1) {
      throw new IllegalArgumentException("--rebalance-attempts must be at least 1 (1: no automatic retry), got "
          + attempts);
    }
  }

  /** Whether attempt {@code failed} (1 for the first) may be followed by another. */
  boolean mayRetry(int failed) {
    return failed < attempts;
  }

  /** The wait after attempt {@code failed} (1 for the first) failed: first delay doubled per earlier failure. */
  Duration delayAfter(int failed) {
    Duration d = firstDelay;
    for (int i = 1; i < failed && d.compareTo(maxDelay) < 0; i++) {
      d = d.multipliedBy(2);
    }
    return d.compareTo(maxDelay) > 0 ? maxDelay : d;
  }
}
