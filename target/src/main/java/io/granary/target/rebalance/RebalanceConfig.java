package io.granary.target.rebalance;

/**
 * How a target moves objects to other targets.
 *
 * @param streams objects sent at once while rebalancing (each a connection to a receiver)
 * @param bandwidthBytesPerSecond the most bytes per second sent while rebalancing, across all streams; 0 uncaps
 */
public record RebalanceConfig(int streams, long bandwidthBytesPerSecond) {
  /** Each move waits on several fsyncs at the receiver: enough streams in flight hide that latency. */
  public static final int DEFAULT_STREAMS = 16;
  /**
   * The default cap per sending target. Measured with bench/rebalance.sh on the 2-core development VM, where every
   * target shares one disk: 32 MiB/s kept foreground GET p99 within 1.7x of idle while objects moved (64 MiB/s: 4.5x;
   * uncapped, about 110 MiB/s per sender: 30x). A target with disks of its own (NVMe) and a fast network can take far
   * more: raise it with --rebalance-bandwidth.
   */
  public static final long DEFAULT_BANDWIDTH = 32L << 20;
  public static final RebalanceConfig DEFAULTS = new RebalanceConfig(DEFAULT_STREAMS, DEFAULT_BANDWIDTH);

  public RebalanceConfig {
    if (streams < 1 || streams > 64) {
      throw new IllegalArgumentException("--rebalance-streams must be between 1 and 64, got " + streams);
    }
    if (bandwidthBytesPerSecond < 0) {
      throw new IllegalArgumentException("--rebalance-bandwidth must be >= 0 (0: uncapped), got "
          + bandwidthBytesPerSecond);
    }
  }
}
