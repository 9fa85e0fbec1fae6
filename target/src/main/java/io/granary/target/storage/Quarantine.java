package io.granary.target.storage;

import io.granary.target.meta.ObjectMeta;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.locks.Lock;

/**
 * Moves a copy whose bytes failed checksum validation aside, into its mountpath's quarantine directory, so that no
 * read serves it again and the operator can look at it. Its record stays: to lookups and to mirroring the copy is
 * then a missing file, which a read falls back from and {@code MirrorRepair} restores, with the means both already
 * have. A rename on the same file system, under the object's write lock, only while the record there is still the
 * version that was hashed (an overwrite meanwhile is a new, good version: it stays). Disk threads only.
 */
public final class Quarantine {
  private final ObjectStore store;

  public Quarantine(ObjectStore store) {
    this.store = store;
  }

  /**
   * Quarantines the file of the object at {@code loc} on mountpath {@code on}, when that mountpath's record of it is
   * still {@code version}.
   *
   * @return where the file went, or null when the object changed meanwhile or the file is gone already
   */
  public Path quarantine(ObjectLocation loc, Mountpath on, ObjectMeta version) throws IOException {
    Lock write = store.locks().forDigest(loc.digest()).writeLock();
    write.lock();
    try {
      ObjectMeta now = store.copies().metaOn(on, loc.key());
      if (now == null || !now.sameVersion(version)) {
        return null;
      }
      Path file = loc.on(on).file();
      Path dir = on.quarantineDir();
      FileOps.createDirectories(dir);
      Path to = dir.resolve(file.getFileName() + "." + System.currentTimeMillis());
      try {
        FileOps.moveReplacing(file, to);
      } catch (NoSuchFileException e) {
        return null;
      }
      FileOps.syncDirectory(dir); // both names durable: a crash never brings the bad file back under its name
      FileOps.syncDirectory(file.getParent());
      return to;
    } finally {
      write.unlock();
    }
  }
}
