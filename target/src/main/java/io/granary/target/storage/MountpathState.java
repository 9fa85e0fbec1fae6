package io.granary.target.storage;

import java.util.Locale;

/**
 * Where a mountpath stands in its target (AIStore's enabled / "waiting DD" / disabled flags). Only
 * {@link #AVAILABLE} mountpaths take new objects (HRW placement); lookups look on every {@link #served()} one.
 */
public enum MountpathState {
  /** In HRW placement: new objects land here, objects are read here. */
  AVAILABLE,
  /**
   * Joining with objects from an earlier life (a disk that comes back): out of placement and not served (lookups,
   * listings) until the resilver has dropped its stale copies (those with a copy elsewhere, or removed while it was
   * away); then available. Removals and commits still drop copies on it meanwhile.
   */
  ATTACHING,
  /** Leaving: out of placement, still read, while the resilver moves its objects off; then released. */
  DETACHING,
  /** Out of use: neither placed on nor read (disabled by an operator, or failed its health check). */
  DISABLED;

  /** Whether the store uses its metadata (to remove copies, to walk it): every state but disabled. */
  public boolean readable() {
    return this != DISABLED;
  }

  /** Whether lookups and listings take copies from here: not from an attaching mountpath, unchecked yet. */
  public boolean served() {
    return this == AVAILABLE || this == DETACHING;
  }

  /** The name in the API and the persisted record: lower case. */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static MountpathState parse(String s) {
    return valueOf(s.toUpperCase(Locale.ROOT));
  }
}
