package io.granary.target.storage;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Bytes one mountpath holds, counted as storage changes them: committed objects, and how many (set from the metadata
 * at open, then adjusted by every commit, delete and bucket destroy), and work files of PUTs in progress (reserved at
 * the declared length, grown when a body runs past it). Thread-safe and cheap enough for the event loop.
 */
public final class MountpathUsage {
  private final AtomicLong objectBytes = new AtomicLong();
  private final AtomicLong objectCount = new AtomicLong();
  private final AtomicLong workBytes = new AtomicLong();

  /** Bytes of committed objects. */
  public long objectBytes() {
    return objectBytes.get();
  }

  /** Committed objects. */
  public long objectCount() {
    return objectCount.get();
  }

  /** Bytes reserved by work files of PUTs in progress. */
  public long workBytes() {
    return workBytes.get();
  }

  void setObjects(long count, long bytes) {
    objectCount.set(count);
    objectBytes.set(bytes);
  }

  void addObjects(long countDelta, long bytesDelta) {
    objectCount.addAndGet(countDelta);
    objectBytes.addAndGet(bytesDelta);
  }

  void addWork(long delta) {
    workBytes.addAndGet(delta);
  }
}
