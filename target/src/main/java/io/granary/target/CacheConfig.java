package io.granary.target;

import java.time.Duration;

/**
 * How a target caches remote buckets: cold GETs and space management.
 *
 * @param coldThreads threads that read from remote stores and write cold objects to disk (bounded: each holds one
 *     backend connection)
 * @param parallelThreshold objects larger than this are fetched with parallel ranged reads; the first read covers this many bytes
 * @param parallelChunk size of each ranged read of a parallel fetch
 * @param parallelStreams ranged reads in flight per parallel fetch
 * @param backendReadTimeout longest silence tolerated from a remote store before a read is retried or failed
 * @param capacityBytes capacity of each mountpath for watermark purposes; 0 uses the file system's size
 * @param highWatermark percent of capacity above which cached remote objects are evicted
 * @param lowWatermark percent of capacity eviction brings usage down to
 * @param dontEvictWindow objects read within this window are spared by eviction
 * @param spaceCheckInterval how often used capacity is measured
 * @param fullWatermark percent of capacity above which PUTs and cold GETs are refused with 507 (eviction is started
 *     first when cached remote objects could make room)
 */
public record CacheConfig(int coldThreads, long parallelThreshold, long parallelChunk, int parallelStreams,
    Duration backendReadTimeout, long capacityBytes, int highWatermark, int lowWatermark, Duration dontEvictWindow,
    Duration spaceCheckInterval, int fullWatermark) {
  public static final int DEFAULT_FULL_WATERMARK = 95;
  public static final CacheConfig DEFAULTS = new CacheConfig(16, 64L << 20, 16L << 20, 4, Duration.ofSeconds(30), 0,
      90, 80, Duration.ofMinutes(10), Duration.ofSeconds(30), DEFAULT_FULL_WATERMARK);

  /** A configuration with the default full watermark (95%, or the high watermark when that is higher). */
  public CacheConfig(int coldThreads, long parallelThreshold, long parallelChunk, int parallelStreams,
      Duration backendReadTimeout, long capacityBytes, int highWatermark, int lowWatermark, Duration dontEvictWindow,
      Duration spaceCheckInterval) {
    this(coldThreads, parallelThreshold, parallelChunk, parallelStreams, backendReadTimeout, capacityBytes,
        highWatermark, lowWatermark, dontEvictWindow, spaceCheckInterval,
        Math.max(DEFAULT_FULL_WATERMARK, highWatermark));
  }

  public CacheConfig {
    if (coldThreads < 1 || parallelStreams < 1) {
      throw new IllegalArgumentException("cold threads and parallel streams must be at least 1");
    }
    if (parallelChunk < (1 << 20)) {
      throw new IllegalArgumentException("parallel chunk must be at least 1MiB, got " + parallelChunk);
    }
    if (capacityBytes < 0) {
      throw new IllegalArgumentException("capacity must be >= 0, got " + capacityBytes);
    }
    if (lowWatermark < 1 || highWatermark > 100 || lowWatermark >= highWatermark) {
      throw new IllegalArgumentException("watermarks must satisfy 1 <= low < high <= 100, got low=" + lowWatermark
          + " high=" + highWatermark);
    }
    if (fullWatermark < highWatermark || fullWatermark > 100) {
      throw new IllegalArgumentException("full watermark must satisfy high <= full <= 100, got full=" + fullWatermark
          + " high=" + highWatermark);
    }
    if (dontEvictWindow == null || dontEvictWindow.isNegative()) {
      throw new IllegalArgumentException("dont-evict window must be >= 0, got " + dontEvictWindow);
    }
    if (spaceCheckInterval == null || spaceCheckInterval.toMillis() < 1) {
      throw new IllegalArgumentException("space check interval must be positive, got " + spaceCheckInterval);
    }
  }

  /** This configuration with other space settings (cold-GET settings kept). */
  public CacheConfig withSpace(long capacityBytes, int highWatermark, int lowWatermark, int fullWatermark,
      Duration dontEvictWindow, Duration spaceCheckInterval) {
    return new CacheConfig(coldThreads, parallelThreshold, parallelChunk, parallelStreams, backendReadTimeout,
        capacityBytes, highWatermark, lowWatermark, dontEvictWindow, spaceCheckInterval, fullWatermark);
  }

  /** These settings with the given cold-GET settings. */
  public CacheConfig withColdGet(int coldThreads, long parallelThreshold, long parallelChunk, int parallelStreams,
      Duration backendReadTimeout) {
    return new CacheConfig(coldThreads, parallelThreshold, parallelChunk, parallelStreams, backendReadTimeout,
        capacityBytes, highWatermark, lowWatermark, dontEvictWindow, spaceCheckInterval, fullWatermark);
  }
}
