package io.granary.target.storage;

import io.granary.clustermap.acl.CannedAcl;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.target.meta.CommitIntent;
import io.granary.target.meta.ObjectMeta;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Lock;

/**
 * The storage side of n-way mirroring (docs/protection.md): full copies of an object on other mountpaths of this
 * target, at the same relative path, each with its own record there that lists its own mountpath. That is how a
 * lookup, a commit, recovery and the resilver tell a mirror copy from a stray (a main copy left on a mountpath that
 * is no longer its HRW one, which they move or remove). The main record lists where the copies are.
 *
 * <p>Every step that publishes checks, under the object's write lock, that the main record still holds the version
 * copied: an overwrite or a delete meanwhile wins, and what was copied is dropped, so a stale copy is never recorded
 * or served. Copies are written like any object: a work file copied in the kernel and fsynced, renamed, its directory
 * fsynced before its record is published (a crash leaves at worst an unrecorded file, replaced by the next copy).
 * What to copy where is decided by {@code io.granary.target.mirror}; this class only does it.
 *
 * <p>Blocking: background threads only (mirror workers, resilver).
 */
public final class MirrorCopies {
  private final ObjectStore store;

  public MirrorCopies(ObjectStore store) {
    this.store = store;
  }

  /**
   * One record of an object on a served mountpath.
   *
   * @param mirror whether the record is a mirror copy on its mountpath (it lists that mountpath)
   * @param fileOk whether its file is a regular file of the recorded size (a missing or replaced file is not)
   */
  public record Held(Mountpath mountpath, ObjectMeta meta, boolean mirror, boolean fileOk) {
  }

  /** Where the object lives under the current mountpaths (its HRW mountpath). */
  public ObjectLocation locate(BucketProps bucket, String name) {
    return store.locate(bucket, name);
  }

  /** The mountpaths now. */
  public MountpathSet mountpaths() {
    return store.mountpathSet();
  }

  /** Every record of the object on the served mountpaths, HRW mountpath first, read under the object's lock. */
  public List<Held> held(ObjectLocation loc) throws IOException {
    List<Held> out = new ArrayList<>();
    Lock read = store.locks().forDigest(loc.digest()).readLock();
    read.lock();
    try {
      List<Mountpath> served = new ArrayList<>(store.mountpathSet().served());
      if (served.remove(loc.mountpath())) {
        served.add(0, loc.mountpath());
      }
      for (Mountpath mp : served) {
        ObjectMeta m = store.copies().metaOn(mp, loc.key());
        if (m != null) {
          out.add(new Held(mp, m, m.isMirrorCopyOn(mp.id()), fileOk(loc.on(mp).file(), m.size())));
        }
      }
    } finally {
      read.unlock();
    }
    return out;
  }

  private static boolean fileOk(Path file, long size) {
    try {
      BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      return a.isRegularFile() && a.size() == size;
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Restores the main copy on the object's HRW mountpath from {@code source} (a mirror copy, or a copy still on
   * another mountpath), recorded with mirror copies {@code copies}. Committed through the commit protocol only if
   * {@code version} is still the newest the target holds; the commit keeps the other mirror copies of that version.
   *
   * @return whether the main copy was committed (false: the object changed meanwhile)
   */
  public boolean restoreMain(ObjectLocation loc, Held source, List<String> copies) throws IOException {
    ObjectMeta version = source.meta();
    try (SpaceReservation room = store.reserve(loc, version.size())) {
      Path work = store.newWorkFile(loc);
      try {
        FileOps.copyDurably(loc.on(source.mountpath()).file(), work);
      } catch (IOException | RuntimeException e) {
        Files.deleteIfExists(work);
        throw e;
      }
      if (Files.isDirectory(loc.file(), LinkOption.NOFOLLOW_LINKS)) {
        Files.delete(loc.file()); // something took the file's place (empty only: anything else stays, and fails)
      }
      String relWork = loc.mountpath().root().relativize(work).toString();
      return store.commit(new CommitIntent(loc.key(), relWork, loc.relativeFile(), version.withCopies(copies)), loc,
          current -> version.sameVersion(current));
    }
  }

  /**
   * Writes a mirror copy of the main copy's {@code version} on {@code to}, replacing what record and file {@code to}
   * held for the object.
   *
   * @return whether the copy was made and recorded on {@code to} (false: the main copy changed or went meanwhile)
   */
  public boolean addCopy(ObjectLocation loc, Mountpath to, ObjectMeta version) throws IOException {
    ObjectLocation dst = loc.on(to);
    FileChannel in = openMain(loc, version);
    if (in == null) {
      return false;
    }
    try (in; SpaceReservation room = store.reserve(dst, version.size())) {
      Path work = store.newWorkFile(dst);
      try (FileChannel out = FileChannel.open(work, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
        FileOps.copyDurably(in, version.size(), out);
      } catch (IOException | RuntimeException e) {
        Files.deleteIfExists(work);
        throw e;
      }
      FileOps.createDirectories(dst.file().getParent());
      if (!renameIfCurrent(loc, dst, work, version)) {
        return false;
      }
    }
    // The rename becomes durable before the record names it; outside the lock, so readers never wait for it.
    FileOps.syncDirectory(dst.file().getParent());
    return publishIfCurrent(loc, dst, version);
  }

  /** The main copy's file, opened under the lock while the main record is still {@code version}; else null. */
  private FileChannel openMain(ObjectLocation loc, ObjectMeta version) throws IOException {
    Lock read = store.locks().forDigest(loc.digest()).readLock();
    read.lock();
    try {
      if (!version.sameVersion(loc.mountpath().meta().get(loc.key()))) {
        return null;
      }
      return FileChannel.open(loc.file(), StandardOpenOption.READ);
    } catch (NoSuchFileException e) {
      return null;
    } finally {
      read.unlock();
    }
  }

  /** Renames the copy's work file into place when the main record is still {@code version}; else drops it. */
  private boolean renameIfCurrent(ObjectLocation loc, ObjectLocation dst, Path work, ObjectMeta version)
      throws IOException {
    Lock write = store.locks().forDigest(loc.digest()).writeLock();
    write.lock();
    try {
      if (!version.sameVersion(loc.mountpath().meta().get(loc.key()))) {
        Files.deleteIfExists(work);
        return false;
      }
      ObjectMeta old = dst.mountpath().meta().get(dst.key());
      if (old != null) {
        store.remove(dst, old); // record first: no reader pairs it with the copy's bytes in between
      }
      FileOps.moveReplacing(work, dst.file());
      return true;
    } finally {
      write.unlock();
    }
  }

  /** Publishes the copy's own record when the main record is still {@code version}; else removes the copy's file. */
  private boolean publishIfCurrent(ObjectLocation loc, ObjectLocation dst, ObjectMeta version) throws IOException {
    Lock write = store.locks().forDigest(loc.digest()).writeLock();
    write.lock();
    try {
      if (!version.sameVersion(loc.mountpath().meta().get(loc.key()))) {
        if (dst.mountpath().meta().get(dst.key()) == null) {
          Files.deleteIfExists(dst.file()); // unrecorded, so nobody else's: the overwrite or delete did not see it
        }
        return false;
      }
      ObjectMeta old = dst.mountpath().meta().get(dst.key());
      dst.mountpath().meta().publish(dst.key(), version.withCopies(List.of(dst.mountpath().id())));
      dst.mountpath().usage().addObjects(old == null ? 1 : 0, version.size() - (old == null ? 0 : old.size()));
      return true;
    } finally {
      write.unlock();
    }
  }

  /**
   * Records {@code copies} (mountpath ids) as the mirror copies of the main record, when it is still
   * {@code version}. A mirror copy's record on the HRW mountpath (the mountpaths changed under it) becomes the main
   * record this way, without a byte copied.
   *
   * @return whether the main record is {@code version} with {@code copies} now
   */
  public boolean record(ObjectLocation loc, ObjectMeta version, List<String> copies) throws IOException {
    Lock write = store.locks().forDigest(loc.digest()).writeLock();
    write.lock();
    try {
      ObjectMeta main = loc.mountpath().meta().get(loc.key());
      if (!version.sameVersion(main)) {
        return false;
      }
      if (!main.copies().equals(copies)) {
        loc.mountpath().meta().publish(loc.key(), main.withCopies(copies));
      }
      return true;
    } finally {
      write.unlock();
    }
  }

  /**
   * Removes the object's record and file on {@code on} (never its HRW mountpath) unless it is newer than
   * {@code version}.
   *
   * @return whether a copy was removed
   */
  public boolean dropCopy(ObjectLocation loc, Mountpath on, ObjectMeta version) throws IOException {
    if (on == loc.mountpath()) {
      throw new IllegalArgumentException("the main copy is not a mirror copy: " + loc.key());
    }
    Lock write = store.locks().forDigest(loc.digest()).writeLock();
    write.lock();
    try {
      ObjectMeta m = on.meta().get(loc.key());
      if (m == null || m.mtime() > version.mtime()) {
        return false;
      }
      store.remove(loc.on(on), m);
      return true;
    } finally {
      write.unlock();
    }
  }

  /**
   * Gives the object's mirror copies of the same version {@code acl} too: a copy that becomes the main one (its
   * main copy lost) must not bring an older ACL back. A copy that cannot take it keeps the old one, and its
   * mountpath's health is checked. Write lock held.
   */
  void aclChanged(Copies.Copy main, CannedAcl acl) {
    for (Mountpath mp : store.mountpathSet().served()) {
      if (mp == main.location().mountpath() || !main.meta().copies().contains(mp.id())) {
        continue;
      }
      try {
        ObjectMeta m = mp.meta().get(main.location().key());
        if (m != null && m.isMirrorCopyOn(mp.id()) && m.sameVersion(main.meta())) {
          mp.meta().publish(main.location().key(), m.withAcl(acl));
        }
      } catch (IOException e) {
        store.copies().report(mp, e);
      }
    }
  }
}
