package io.granary.target.storage;

/**
 * Told when a read was served from a mirror copy because the object's main copy is missing or unreadable
 * (mirroring counts it and restores the lost copy). Runs on the reading thread, an event loop: must not block.
 */
@FunctionalInterface
public interface FallbackListener {
  FallbackListener NONE = loc -> { };

  /** @param loc the object, at its HRW mountpath */
  void servedFromCopy(ObjectLocation loc);
}
