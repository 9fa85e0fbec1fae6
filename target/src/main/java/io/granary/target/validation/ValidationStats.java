package io.granary.target.validation;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Counters of checksum validation on one target, exported as {@code granary_validation_*} (docs/metrics.md). A
 * failure is a copy whose bytes do not hash to its record's checksum; by where it was found.
 */
public final class ValidationStats {
  final AtomicLong getFailures = new AtomicLong();     // found by a warm GET
  final AtomicLong scrubFailures = new AtomicLong();   // found by a scrub
  final AtomicLong mirrorRepairs = new AtomicLong();   // bad copies replaced from an intact copy on this target
  final AtomicLong ecRepairs = new AtomicLong();       // main copies rebuilt from EC slices on other targets
  final AtomicLong remoteRepairs = new AtomicLong();   // cached copies dropped: the remote serves the next GET
  final AtomicLong unrepairable = new AtomicLong();    // objects with no intact copy and no remote
  final AtomicLong quarantined = new AtomicLong();     // files moved into a quarantine directory

  public long getFailures() {
    return getFailures.get();
  }

  public long scrubFailures() {
    return scrubFailures.get();
  }

  public long mirrorRepairs() {
    return mirrorRepairs.get();
  }

  public long ecRepairs() {
    return ecRepairs.get();
  }

  public long remoteRepairs() {
    return remoteRepairs.get();
  }

  public long unrepairable() {
    return unrepairable.get();
  }

  public long quarantined() {
    return quarantined.get();
  }
}
