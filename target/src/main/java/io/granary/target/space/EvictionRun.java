package io.granary.target.space;

import java.time.Duration;

/**
 * What one LRU run over one mountpath did.
 *
 * @param mountpath the mountpath
 * @param objects objects evicted
 * @param bytes bytes freed
 * @param passes metadata scans made (each keeps at most the heap limit of oldest candidates)
 * @param spared objects skipped because they were read within the dont-evict window (counted on the last pass)
 * @param reachedLow whether usage ended at or below the low watermark
 * @param took how long the run took
 */
public record EvictionRun(String mountpath, long objects, long bytes, int passes, long spared, boolean reachedLow,
    Duration took) {
}
