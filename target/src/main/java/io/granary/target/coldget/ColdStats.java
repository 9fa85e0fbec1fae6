package io.granary.target.coldget;

import java.util.concurrent.atomic.AtomicLong;

/** Counters of a target's cold GETs, for logs now and Prometheus metrics later. */
public final class ColdStats {
  private final AtomicLong fetches = new AtomicLong();
  private final AtomicLong bytes = new AtomicLong();
  private final AtomicLong nanos = new AtomicLong();
  private final AtomicLong coalesced = new AtomicLong();
  private final AtomicLong checksumErrors = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();
  private final AtomicLong revalidations = new AtomicLong();
  private final AtomicLong versionChanges = new AtomicLong();

  void fetched(long size, long elapsedNanos) {
    fetches.incrementAndGet();
    bytes.addAndGet(size);
    nanos.addAndGet(elapsedNanos);
  }

  void joined() {
    coalesced.incrementAndGet();
  }

  void checksumError() {
    checksumErrors.incrementAndGet();
  }

  void failed() {
    failures.incrementAndGet();
  }

  void revalidated(boolean changed) {
    revalidations.incrementAndGet();
    if (changed) {
      versionChanges.incrementAndGet();
    }
  }

  /** Objects fetched and committed. */
  public long fetches() {
    return fetches.get();
  }

  public long bytes() {
    return bytes.get();
  }

  /** Requests that joined a fetch already in flight instead of starting one. */
  public long coalesced() {
    return coalesced.get();
  }

  /** Fetches whose content did not match the remote's checksum (nothing cached). */
  public long checksumErrors() {
    return checksumErrors.get();
  }

  public long failures() {
    return failures.get();
  }

  public long revalidations() {
    return revalidations.get();
  }

  public long versionChanges() {
    return versionChanges.get();
  }
}
