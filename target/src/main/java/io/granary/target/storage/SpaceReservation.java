package io.granary.target.storage;

import java.util.concurrent.atomic.AtomicBoolean;

/** Bytes counted as a work file in progress on one mountpath until {@link #close}; closing twice is harmless. */
public final class SpaceReservation implements AutoCloseable {
  private final MountpathUsage usage;
  private final long bytes;
  private final AtomicBoolean released = new AtomicBoolean();

  SpaceReservation(MountpathUsage usage, long bytes) {
    this.usage = usage;
    this.bytes = bytes;
    usage.addWork(bytes);
  }

  public long bytes() {
    return bytes;
  }

  @Override
  public void close() {
    if (released.compareAndSet(false, true)) {
      usage.addWork(-bytes);
    }
  }
}
