package io.granary.target.storage;

import io.granary.common.error.ServiceUnavailableException;
import io.granary.target.meta.ObjectMeta;
import java.io.IOException;
import java.util.List;
import java.util.function.BiPredicate;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The copies of one object across a target's readable mountpaths. Normally there is one, on the object's HRW
 * mountpath; while mountpaths change a copy may still be on another one (not moved yet, or written just before the
 * change), and for a moment of a move on two. A lookup tries the HRW mountpath first and the others only on a miss,
 * taking the newest (by mtime), so an HRW hit costs one point read as it always did.
 *
 * <p>I/O errors on a mountpath still read become 503 for the request and a health check of the mountpath
 * ({@link FaultListener}); a mountpath that left since the caller took the set is simply not read.
 */
final class Copies {
  private static final Logger log = LoggerFactory.getLogger(Copies.class);

  /** A copy of an object on one mountpath: where it is and its metadata. */
  record Copy(ObjectLocation location, ObjectMeta meta) {
  }

  /** Removes one copy (metadata, access time, file). */
  @FunctionalInterface
  interface Remover {
    void remove(ObjectLocation loc, ObjectMeta meta) throws IOException;
  }

  private final String nodeId;
  private final MountpathRegistry registry;
  private volatile FaultListener faults = FaultListener.NONE;

  Copies(String nodeId, MountpathRegistry registry) {
    this.nodeId = nodeId;
    this.registry = registry;
  }

  void setFaultListener(FaultListener listener) {
    this.faults = listener == null ? FaultListener.NONE : listener;
  }

  /**
   * The object's copy on its HRW mountpath, else the newest on the other served mountpaths; null when none holds
   * it. Callers that pair the answer with the file hold the object's lock.
   */
  Copy find(ObjectLocation loc) throws IOException {
    ObjectMeta m = metaOn(loc.mountpath(), loc.key());
    if (m != null) {
      return new Copy(loc, m);
    }
    List<Mountpath> served = registry.current().served();
    if (served.size() == 1) {
      return null;
    }
    Copy newest = null;
    for (Mountpath mp : served) {
      if (mp == loc.mountpath()) {
        continue;
      }
      ObjectMeta o = metaOn(mp, loc.key());
      if (o != null && (newest == null || o.mtime() > newest.meta().mtime())) {
        newest = new Copy(loc.on(mp), o);
      }
    }
    return newest;
  }

  /** The newest record of the object on any served mountpath, given {@code here}, the one on {@code loc}'s. */
  ObjectMeta newest(ObjectLocation loc, ObjectMeta here) throws IOException {
    ObjectMeta newest = here;
    for (Mountpath mp : registry.current().served()) {
      ObjectMeta o = mp == loc.mountpath() ? null : metaOn(mp, loc.key());
      if (o != null && (newest == null || o.mtime() > newest.mtime())) {
        newest = o;
      }
    }
    return newest;
  }

  /**
   * The record of {@code key} on {@code mp}; null when none, or when {@code mp} is no longer read (it left since the
   * caller took it). An I/O error on a mountpath still read is 503, and its health gets checked.
   */
  ObjectMeta metaOn(Mountpath mp, String key) throws IOException {
    try {
      return mp.meta().get(key);
    } catch (IOException e) {
      if (!registry.current().isReadable(mp)) {
        return null;
      }
      throw unavailable(mp, e);
    }
  }

  /**
   * Reports an I/O error on {@code mp} for a health check and returns the 503 the request gets. A full disk is not a
   * failed one: its error is rethrown as it is (507 further up).
   */
  RuntimeException unavailable(Mountpath mp, IOException e) throws IOException {
    String msg = String.valueOf(e.getMessage());
    if (msg.contains("No space left") || msg.contains("Disk quota exceeded")) {
      throw e;
    }
    faults.ioError(mp, e);
    return new ServiceUnavailableException(ServiceUnavailableException.MOUNTPATH_UNAVAILABLE, "mountpath " + mp
        + " of target " + nodeId + " failed: " + e, 1, e);
  }

  /** Reports an I/O error on {@code mp} for a health check, and nothing else (the caller carries on). */
  void report(Mountpath mp, IOException e) {
    faults.ioError(mp, e);
  }

  /**
   * Removes the copies of {@code loc}'s object on readable mountpaths other than {@code loc}'s whose record
   * {@code which} accepts, and any copy on an attaching mountpath (unchecked: it predates every write and delete
   * made now, whatever its mtime says). Caller holds the write lock. A mountpath that fails is reported and skipped:
   * the copy on it goes with the mountpath.
   *
   * @return whether a served copy was removed
   */
  boolean removeOthers(ObjectLocation loc, Predicate<ObjectMeta> which, Remover remover) {
    return removeOthers(loc, (mp, m) -> which.test(m), remover);
  }

  /** {@link #removeOthers(ObjectLocation, Predicate, Remover)} with a choice that sees the copy's mountpath too. */
  boolean removeOthers(ObjectLocation loc, BiPredicate<Mountpath, ObjectMeta> which, Remover remover) {
    boolean removed = false;
    MountpathSet set = registry.current();
    for (Mountpath other : set.readable()) {
      if (other == loc.mountpath()) {
        continue;
      }
      try {
        ObjectMeta m = other.meta().get(loc.key());
        boolean served = set.isServed(other);
        if (m != null && (which.test(other, m) || !served)) {
          remover.remove(loc.on(other), m);
          removed |= served;
        }
      } catch (IOException e) {
        log.warn("node={} mountpath={} bucket={} object={}: removing another copy failed: {}", nodeId, other,
            loc.bucket().bucket(), loc.name(), e.toString());
        faults.ioError(other, e);
      }
    }
    return removed;
  }
}
