package io.granary.target.rebalance;

import java.time.Duration;

/**
 * How a target moves objects to other targets.
 *
 * @param streams objects sent at once while rebalancing (each a connection to a receiver)
 * @param bandwidthBytesPerSecond the most bytes per second sent while rebalancing, across all streams; 0 uncaps
 * @param neighborRelaySize objects at least this large, read before they have moved here, are relayed from the
 *     target holding them while they move; smaller ones are brought here first, then served
 * @param joinSettle the longest a starting target waits, after its warm-up, for its JIT compiler to go quiet before
 *     it registers (and a rebalance toward it starts); zero registers at once
 * @param warmUp whether a starting target warms its request path (checksums, a burst of requests over loopback) and
 *     then waits up to {@code joinSettle} for its compiler before it registers; without, it registers at once and
 *     its first requests run cold, which only a cluster under load notices (tests, a laptop)
 */
public record RebalanceConfig(int streams, long bandwidthBytesPerSecond, long neighborRelaySize,
    Duration joinSettle, boolean warmUp) {
  /** Each move waits on several fsyncs at the receiver: enough streams in flight hide that latency. */
  public static final int DEFAULT_STREAMS = 16;
  /**
   * The default cap per sending target. Measured with bench/rebalance.sh on the 2-core development VM, where every
   * target shares one disk: 32 MiB/s kept foreground GET p99 within 1.7x of idle while objects moved (64 MiB/s: 4.5x;
   * uncapped, about 110 MiB/s per sender: 30x). A target with disks of its own (NVMe) and a fast network can take far
   * more: raise it with --rebalance-bandwidth.
   */
  public static final long DEFAULT_BANDWIDTH = 32L << 20;
  /**
   * Below it, sending the object whole and serving it from here costs a reader a few milliseconds and the new owner
   * one copy; above it, waiting for the whole object (and its fsync) before the first byte costs more than relaying.
   * Measured with bench/rebalance.sh (p99 part, 1 MiB objects): relaying every read doubled what a joining target
   * does per object in its first, still uncompiled, seconds.
   */
  public static final long DEFAULT_NEIGHBOR_RELAY_SIZE = 8L << 20;
  /**
   * Measured with bench/rebalance.sh (p99 part, JFR): a joining target kept compiling for 3-4 s after its warm-up,
   * taking most of two cores in the rebalance's first seconds; it goes quiet within this on the 2-core VM.
   */
  public static final Duration DEFAULT_JOIN_SETTLE = Duration.ofSeconds(5);
  public static final RebalanceConfig DEFAULTS = new RebalanceConfig(DEFAULT_STREAMS, DEFAULT_BANDWIDTH,
      DEFAULT_NEIGHBOR_RELAY_SIZE, DEFAULT_JOIN_SETTLE, true);

  /** With the default relay size and join settle. */
  public RebalanceConfig(int streams, long bandwidthBytesPerSecond) {
    this(streams, bandwidthBytesPerSecond, DEFAULT_NEIGHBOR_RELAY_SIZE);
  }

  /** With the default join settle. */
  public RebalanceConfig(int streams, long bandwidthBytesPerSecond, long neighborRelaySize) {
    this(streams, bandwidthBytesPerSecond, neighborRelaySize, DEFAULT_JOIN_SETTLE);
  }

  /** With the warm-up. */
  public RebalanceConfig(int streams, long bandwidthBytesPerSecond, long neighborRelaySize, Duration joinSettle) {
    this(streams, bandwidthBytesPerSecond, neighborRelaySize, joinSettle, true);
  }

  public RebalanceConfig {
    if (streams < 1 || streams > 64) {
      throw new IllegalArgumentException("--rebalance-streams must be between 1 and 64, got " + streams);
    }
    if (bandwidthBytesPerSecond < 0) {
      throw new IllegalArgumentException("--rebalance-bandwidth must be >= 0 (0: uncapped), got "
          + bandwidthBytesPerSecond);
    }
    if (joinSettle == null || joinSettle.isNegative()) {
      throw new IllegalArgumentException("--join-settle must be >= 0s (0s: register at once), got "
          + (joinSettle == null ? "nothing" : joinSettle.toMillis() + " ms"));
    }
    if (neighborRelaySize < 0) {
      throw new IllegalArgumentException("--neighbor-relay-size must be >= 0 (0: relay every read), got "
          + neighborRelaySize);
    }
  }
}
