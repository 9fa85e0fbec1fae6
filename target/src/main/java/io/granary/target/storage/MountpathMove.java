package io.granary.target.storage;

import io.granary.clustermap.bucket.BucketProps;
import io.granary.target.meta.CommitIntent;
import io.granary.target.meta.ObjectMeta;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.concurrent.locks.Lock;

/**
 * Objects that move between the mountpaths of this target (resilver), as the store sees them. A move copies the
 * file in the kernel into a work file on the object's HRW mountpath, fsyncs it, and commits it through the commit
 * protocol only if the newest copy is still the one copied; the commit removes the source copy under the object's
 * lock, so readers see the source, then the destination, never neither. A crash at any step leaves the source, or
 * both with the same version (the next resilver only removes the source), never neither. Access times go along.
 *
 * <p>Blocking: resilver threads only.
 */
public final class MountpathMove {
  private final ObjectStore store;

  public MountpathMove(ObjectStore store) {
    this.store = store;
  }

  /** How a move ended. */
  public enum Outcome {
    /** Copied to the HRW mountpath; the source copy is gone. */
    MOVED,
    /** The copy is on its HRW mountpath already. */
    IN_PLACE,
    /** The HRW mountpath held this version or a newer one already; the source copy is gone (if unchanged). */
    KEPT,
    /** The source copy was overwritten, deleted or moved meanwhile: nothing to do. */
    GONE
  }

  /** @param bytes the bytes copied (MOVED only) */
  public record Result(Outcome outcome, long bytes) {
  }

  /**
   * Moves the copy of the object that {@code from} holds to the object's HRW mountpath under the current mountpaths.
   * 507 when the destination has no room.
   */
  public Result move(BucketProps bucket, String name, Mountpath from) throws IOException {
    ObjectLocation dest = store.locate(bucket, name);
    if (dest.mountpath() == from) {
      return new Result(Outcome.IN_PLACE, 0);
    }
    ObjectLocation src = dest.on(from);
    ObjectMeta meta;
    FileChannel in;
    long atime;
    Lock read = store.locks().forDigest(dest.digest()).readLock();
    read.lock();
    try {
      meta = from.meta().get(src.key());
      if (meta == null) {
        return new Result(Outcome.GONE, 0);
      }
      ObjectMeta there = dest.mountpath().meta().get(dest.key());
      in = there != null && there.mtime() >= meta.mtime() ? null // the destination has it: only the source goes
          : FileChannel.open(src.file(), StandardOpenOption.READ); // this version's bytes, whatever happens next
      atime = from.meta().atime(src.key());
    } catch (IOException e) {
      store.copies().report(from, e); // a disk that vanished under the walk: its health check disables it
      throw e;
    } finally {
      read.unlock();
    }
    if (in == null) {
      return new Result(removeIfUnchanged(src, meta) ? Outcome.KEPT : Outcome.GONE, 0);
    }
    try (in) {
      if (!copyAndCommit(in, dest, meta)) {
        return new Result(Outcome.GONE, 0);
      }
    } catch (IOException e) {
      if (!String.valueOf(e.getMessage()).contains("No space left")) { // a full disk is not a failed one
        store.copies().report(from, e); // the copy read one and wrote the other: both get checked
        store.copies().report(dest.mountpath(), e);
      }
      throw e;
    }
    if (atime > 0) {
      dest.mountpath().meta().putAtimes(Map.of(dest.key(), atime));
    }
    store.accessRecorder().moved(src, dest);
    return new Result(Outcome.MOVED, meta.size());
  }

  /** Copies {@code in} to a work file on {@code dest}'s mountpath and commits it if {@code meta} is still newest. */
  private boolean copyAndCommit(FileChannel in, ObjectLocation dest, ObjectMeta meta) throws IOException {
    try (SpaceReservation room = store.reserve(dest, meta.size())) {
      Path work = store.newWorkFile(dest);
      try (FileChannel out = FileChannel.open(work, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
        FileOps.copyDurably(in, meta.size(), out);
      } catch (IOException | RuntimeException e) {
        Files.deleteIfExists(work);
        throw e;
      }
      String relWork = dest.mountpath().root().relativize(work).toString();
      // Committed only over the very version copied: a write or delete since wins, and the commit removes the source.
      return store.commit(new CommitIntent(dest.key(), relWork, dest.relativeFile(), meta), dest,
          current -> meta.equals(current));
    }
  }

  /** Removes the copy at {@code loc} if it is still {@code meta}. */
  private boolean removeIfUnchanged(ObjectLocation loc, ObjectMeta meta) throws IOException {
    Lock write = store.locks().forDigest(loc.digest()).writeLock();
    write.lock();
    try {
      ObjectMeta now = loc.mountpath().meta().get(loc.key());
      if (now == null || !now.equals(meta)) {
        return false;
      }
      store.remove(loc, now);
      return true;
    } finally {
      write.unlock();
    }
  }

  /**
   * Checks the copy a joining mountpath ({@code joining}, back with objects from an earlier life) holds before it is
   * served: it is dropped when another readable mountpath holds a copy (what was served while it was away wins,
   * whatever the mtimes say: clocks differ, and a copy from another target keeps its mtime), or when the object was
   * removed while it was disabled ({@link AwayDeletes}). Otherwise it is the only copy and stays.
   *
   * @return whether the joining mountpath's copy stays
   */
  public boolean checkReturning(BucketProps bucket, String name, Mountpath joining) throws IOException {
    ObjectLocation loc = store.locate(bucket, name).on(joining);
    Lock write = store.locks().forDigest(loc.digest()).writeLock();
    write.lock();
    try {
      ObjectMeta mine = joining.meta().get(loc.key());
      if (mine == null) {
        return false;
      }
      boolean elsewhere = false;
      for (Mountpath mp : store.mountpaths()) {
        elsewhere |= mp != joining && mp.meta().get(loc.key()) != null;
      }
      if (elsewhere || store.awayDeletes().removedWhileAway(joining, loc.key())) {
        store.remove(loc, mine);
        return false;
      }
      return true;
    } finally {
      write.unlock();
    }
  }
}
