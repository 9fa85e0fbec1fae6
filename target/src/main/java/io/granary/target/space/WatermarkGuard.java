package io.granary.target.space;

import io.granary.common.error.InsufficientStorageException;
import io.granary.target.storage.Mountpath;
import io.granary.target.storage.SpaceGuard;
import java.io.IOException;

/**
 * Admits PUTs and cold-GET work files by watermark. Above the high watermark it starts eviction (no waiting).
 * When the new bytes would take usage past the full watermark it starts eviction too, if cached remote objects
 * could make room, and refuses with 507 now: the client retries once eviction has freed space. Runs on the event
 * loop: a measurement is counters (with a capacity limit) or one statvfs.
 */
final class WatermarkGuard implements SpaceGuard {
  /** Starts an eviction run of a mountpath unless one is running; must not block. */
  @FunctionalInterface
  interface EvictionTrigger {
    void request(Mountpath mp);
  }

  private final String nodeId;
  private final CapacityMeter meter;
  private final int highWatermark;
  private final int fullWatermark;
  private final EvictionTrigger trigger;
  private final SpaceStats stats;

  WatermarkGuard(String nodeId, CapacityMeter meter, int highWatermark, int fullWatermark, EvictionTrigger trigger,
      SpaceStats stats) {
    this.nodeId = nodeId;
    this.meter = meter;
    this.highWatermark = highWatermark;
    this.fullWatermark = fullWatermark;
    this.trigger = trigger;
    this.stats = stats;
  }

  @Override
  public void admit(Mountpath mp, long bytes) throws IOException {
    Capacity c = meter.measure(mp);
    if (c.above(highWatermark)) {
      trigger.request(mp);
    }
    if (c.usedBytes() + bytes > c.bytesAt(fullWatermark)) {
      trigger.request(mp);
      stats.recordRefusal();
      throw new InsufficientStorageException("mountpath " + mp + " of " + nodeId + " is full: " + c.usedBytes()
          + " of " + c.capacityBytes() + " bytes used; storing " + bytes + " more would pass the " + fullWatermark
          + "% limit");
    }
  }

  @Override
  public void grow(Mountpath mp, long bytes) throws IOException {
    Capacity c = meter.measure(mp);
    if (c.usedBytes() + bytes > c.capacityBytes()) { // a body of unknown length may fill up to, not past, capacity
      trigger.request(mp);
      stats.recordRefusal();
      throw new InsufficientStorageException("mountpath " + mp + " of " + nodeId + " ran out of space: "
          + c.usedBytes() + " of " + c.capacityBytes() + " bytes used");
    }
    if (c.above(highWatermark)) {
      trigger.request(mp);
    }
  }
}
