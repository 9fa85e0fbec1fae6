package io.granary.target.rebalance;

import com.google.common.util.concurrent.RateLimiter;
import java.time.Duration;

/**
 * The most bytes per second a target sends to other targets while rebalancing, shared by all its sending streams,
 * so foreground reads keep their speed. Built on Guava's warming-up {@link RateLimiter}: after a pause (a new
 * rebalance) it starts at a third of the cap and reaches the cap over {@link #WARM_UP}, so the receivers, a joining
 * target's fresh JVM above all, are not flooded while they compile their hot paths and serve their first reads.
 * Get-from-neighbor sends are foreground work and go uncapped.
 */
final class BandwidthCap {
  /** No cap. */
  static final BandwidthCap NONE = new BandwidthCap(null, 0);
  static final Duration WARM_UP = Duration.ofSeconds(10);

  private final RateLimiter limiter; // null: uncapped
  private final long bytesPerSecond;

  private BandwidthCap(RateLimiter limiter, long bytesPerSecond) {
    this.limiter = limiter;
    this.bytesPerSecond = bytesPerSecond;
  }

  /** A cap of {@code bytesPerSecond}; 0 for none. */
  static BandwidthCap of(long bytesPerSecond) {
    if (bytesPerSecond < 0) {
      throw new IllegalArgumentException("bandwidth cap must be >= 0 bytes per second, got " + bytesPerSecond);
    }
    return bytesPerSecond == 0 ? NONE : new BandwidthCap(RateLimiter.create(bytesPerSecond, WARM_UP), bytesPerSecond);
  }

  boolean capped() {
    return limiter != null;
  }

  long bytesPerSecond() {
    return bytesPerSecond;
  }

  /**
   * How many bytes to send in one piece: about a tenth of a second's worth, between 256 KiB and 8 MiB, so the cap
   * is smooth without a write per few kilobytes; uncapped, a whole object at once.
   */
  long region(long remaining) {
    if (limiter == null) {
      return remaining;
    }
    return Math.min(remaining, Math.max(256L << 10, Math.min(8L << 20, bytesPerSecond / 10)));
  }

  /** Blocks until {@code bytes} may be sent. */
  void acquire(long bytes) {
    if (limiter != null && bytes > 0) {
      limiter.acquire((int) Math.min(bytes, Integer.MAX_VALUE));
    }
  }
}
