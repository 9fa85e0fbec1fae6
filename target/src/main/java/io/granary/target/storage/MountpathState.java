package io.granary.target.storage;

import java.util.Locale;

/**
 * Where a mountpath stands in its target (AIStore's enabled / "waiting DD" / disabled flags). Only
 * {@link #AVAILABLE} mountpaths take new objects (HRW placement); reads look on every {@link #readable()} one.
 */
public enum MountpathState {
  /** In HRW placement: new objects land here, objects are read here. */
  AVAILABLE,
  /**
   * Joining with objects from an earlier life (a disk that comes back): read, but not in placement until the
   * resilver has made sure none of its copies is older than one elsewhere; then available.
   */
  ATTACHING,
  /** Leaving: out of placement, still read, while the resilver moves its objects off; then released. */
  DETACHING,
  /** Out of use: neither placed on nor read (disabled by an operator, or failed its health check). */
  DISABLED;

  /** Whether reads look here. */
  public boolean readable() {
    return this != DISABLED;
  }

  /** The name in the API and the persisted record: lower case. */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static MountpathState parse(String s) {
    return valueOf(s.toUpperCase(Locale.ROOT));
  }
}
