package io.granary.target.mirror;

import java.util.concurrent.atomic.AtomicLong;

/** Counters of mirroring on one target, exported as {@code granary_mirror_*} (docs/metrics.md). */
public final class MirrorStats {
  final AtomicLong made = new AtomicLong();          // mirror copies written and recorded
  final AtomicLong failures = new AtomicLong();      // copies that could not be made (I/O error, no room, no source)
  final AtomicLong fallbackReads = new AtomicLong(); // reads served from a mirror copy: the main copy was lost
  final AtomicLong restoredMain = new AtomicLong();  // main copies restored from a mirror copy
  final AtomicLong dropped = new AtomicLong();       // copies removed: above the setting, or on a leaving mountpath
  final AtomicLong overflows = new AtomicLong();     // objects not queued (queue full): left to a walk of their bucket

  public long made() {
    return made.get();
  }

  public long failures() {
    return failures.get();
  }

  public long fallbackReads() {
    return fallbackReads.get();
  }

  public long restoredMain() {
    return restoredMain.get();
  }

  public long dropped() {
    return dropped.get();
  }

  public long overflows() {
    return overflows.get();
  }
}
