package io.granary.target.space;

/**
 * One measurement of a mountpath.
 *
 * @param capacityBytes what the watermarks are percentages of: the configured per-mountpath limit, or the file
 *     system's size
 * @param usedBytes with a limit, bytes of objects, work files and multipart parts on the mountpath; without one,
 *     the file system's used bytes (size minus usable)
 * @param limited whether {@code capacityBytes} is a configured limit
 */
public record Capacity(long capacityBytes, long usedBytes, boolean limited) {
  public Capacity {
    if (capacityBytes < 0) {
      throw new IllegalArgumentException("capacity must be >= 0, got " + capacityBytes);
    }
  }

  /** {@code percent} of the capacity, in bytes. */
  public long bytesAt(int percent) {
    return (long) ((double) capacityBytes * percent / 100);
  }

  /** Whether used bytes exceed {@code percent} of the capacity. */
  public boolean above(int percent) {
    return usedBytes > bytesAt(percent);
  }

  /** Used bytes as a percentage of the capacity (100 for a zero capacity). */
  public double usedPercent() {
    return capacityBytes == 0 ? 100 : usedBytes * 100.0 / capacityBytes;
  }
}
