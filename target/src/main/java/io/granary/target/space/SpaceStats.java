package io.granary.target.space;

import java.util.concurrent.atomic.LongAdder;

/** Counters of space management on one target, for metrics ({@code lru.evict.n}, {@code lru.evict.size} in AIStore). */
public final class SpaceStats {
  private final LongAdder runs = new LongAdder();
  private final LongAdder evictedObjects = new LongAdder();
  private final LongAdder evictedBytes = new LongAdder();
  private final LongAdder refused = new LongAdder();

  void recordRun(EvictionRun run) {
    runs.increment();
    evictedObjects.add(run.objects());
    evictedBytes.add(run.bytes());
  }

  void recordRefusal() {
    refused.increment();
  }

  /** LRU runs finished. */
  public long runs() {
    return runs.sum();
  }

  /** Objects evicted by LRU. */
  public long evictedObjects() {
    return evictedObjects.sum();
  }

  /** Bytes freed by LRU. */
  public long evictedBytes() {
    return evictedBytes.sum();
  }

  /** PUTs and cold GETs refused with 507 because a mountpath was above the full watermark. */
  public long refused() {
    return refused.sum();
  }
}
