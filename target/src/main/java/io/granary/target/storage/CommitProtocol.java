package io.granary.target.storage;

import io.granary.target.meta.CommitIntent;
import io.granary.target.meta.ObjectMeta;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.Lock;

/**
 * Steps (2) and (3) of the commit protocol (see {@link ObjectStore}), the one way every object version is committed:
 * PUT, multipart completion, CopyObject, cold GET, a copy moved from another target (rebalance) or another
 * mountpath (resilver). Disk executor only.
 *
 * <p>The intent is dropped only after the object's directory is fsynced: a rename is durable only then, and an
 * intent that outlives a power loss is what finishes an undone rename at the next start. Publishing the metadata and
 * dropping the intent are separate writes for that reason, and the directory sync runs outside the object's lock so
 * readers never wait for it.
 *
 * <p>A committed version removes the copies of its object on other mountpaths that are not newer (a copy waiting to
 * move, or the source of the move itself), under the same lock, so readers never see an older version come back.
 */
final class CommitProtocol {
  private final MountpathRegistry registry;
  private final Copies copies;
  private final NameLocks locks;
  private final Copies.Remover remover;
  private volatile ObjectStore.DirectorySync directorySync = FileOps::syncDirectory; // tests observe it
  private final List<ObjectStore.CommitListener> commitListeners = new CopyOnWriteArrayList<>(); // handoffs, mirror
  private volatile MisplacedListener misplacedListener = MisplacedListener.NONE; // resilver: a late commit

  CommitProtocol(MountpathRegistry registry, Copies copies, NameLocks locks, Copies.Remover remover) {
    this.registry = registry;
    this.copies = copies;
    this.locks = locks;
    this.remover = remover;
  }

  void addCommitListener(ObjectStore.CommitListener listener) {
    commitListeners.add(listener);
  }

  void setMisplacedListener(MisplacedListener listener) {
    this.misplacedListener = listener == null ? MisplacedListener.NONE : listener;
  }

  void directorySync(ObjectStore.DirectorySync sync) {
    this.directorySync = sync;
  }

  /**
   * Commits the intent's work file as the object's version on {@code loc}'s mountpath, when {@code condition} (null:
   * always) accepts the newest copy held now. A refused commit (false, or the condition's exception) removes the
   * work file and changes nothing.
   *
   * <p>A conditional commit writes its intent only once the condition accepted, under the lock: an intent is what
   * recovery finishes after a crash, and recovery cannot evaluate the condition again, so an intent written before
   * the check could commit a refused version (a conditional PUT that lost its race) at the next start. Readers of
   * that one object wait for that one synced write; unconditional commits keep writing it before the lock.
   *
   * @return whether the work file was committed
   */
  boolean commit(CommitIntent intent, ObjectLocation loc, ObjectStore.CommitCondition condition) throws IOException {
    Mountpath mp = loc.mountpath();
    Path work = mp.root().resolve(intent.workFile());
    try {
      if (condition == null) {
        mp.meta().putIntent(intent);
      }
      createObjectDirectories(mp, loc.file().getParent());
      Lock write = locks.forDigest(loc.digest()).writeLock();
      write.lock();
      try {
        ObjectMeta old = mp.meta().get(loc.key());
        if (condition != null) {
          if (!accepts(condition, copies.newest(loc, old), work)) {
            return false;
          }
          mp.meta().putIntent(intent);
        }
        FileOps.moveReplacing(work, loc.file());
        mp.meta().publish(intent.key(), intent.meta());
        mp.usage().addObjects(old == null ? 1 : 0, intent.meta().size() - (old == null ? 0 : old.size()));
        copies.removeOthers(loc, (other, m) -> olderOrStray(other, m, intent.meta()), remover);
      } finally {
        write.unlock();
      }
    } catch (IOException e) {
      dropUnrenamed(mp, intent, work);
      throw copies.unavailable(mp, e);
    } catch (RuntimeException e) {
      dropUnrenamed(mp, intent, work);
      throw e;
    }
    directorySync.sync(loc.file().getParent());
    mp.meta().dropIntent(intent.workFile());
    for (ObjectStore.CommitListener l : commitListeners) {
      l.committed(loc, intent.meta());
    }
    MountpathSet now = registry.current();
    if (!now.isAvailable(mp) || now.available().size() > 1 && now.pick(loc.digest()) != mp) {
      misplacedListener.misplaced(loc); // the mountpaths changed while it was written: it belongs elsewhere now
    }
    return true;
  }

  /**
   * Whether a commit of {@code committed} removes the record {@code m} held on {@code other}: a copy not newer than
   * the commit goes (the source of a move, a version overwritten), except a mirror copy of the very version committed
   * (a main copy restored from a mirror one, or moved to its HRW mountpath, keeps the object's other copies).
   */
  static boolean olderOrStray(Mountpath other, ObjectMeta m, ObjectMeta committed) {
    return m.mtime() <= committed.mtime() && !(m.isMirrorCopyOn(other.id()) && m.sameVersion(committed));
  }

  /** Evaluates a commit condition; a refusal, returned or thrown, removes the work file first. Write lock held. */
  private static boolean accepts(ObjectStore.CommitCondition condition, ObjectMeta current, Path work)
      throws IOException {
    boolean accepted;
    try {
      accepted = condition.accept(current);
    } catch (RuntimeException refused) {
      Files.deleteIfExists(work);
      throw refused;
    }
    if (!accepted) {
      Files.deleteIfExists(work);
    }
    return accepted;
  }

  /** After a failed commit: an intent whose rename did not happen must not complete it at the next start. */
  private static void dropUnrenamed(Mountpath mp, CommitIntent intent, Path work) {
    if (Files.exists(work)) {
      try {
        mp.meta().dropIntent(intent.workFile());
      } catch (IOException ignored) {
        // the mountpath is failing; if it comes back, recovery commits this complete, fsynced version after all
      }
    }
  }

  /**
   * Creates an object's directories below the mountpath's {@code objects/}, never that directory itself: when it is
   * gone the mountpath's directory was renamed away or its disk unmounted, and creating it again would put objects on
   * whatever file system is left in its place.
   */
  private static void createObjectDirectories(Mountpath mp, Path dir) throws IOException {
    if (!Files.isDirectory(dir) && !Files.isDirectory(mp.objectsDir())) {
      throw new NoSuchFileException(mp.objectsDir().toString(), null, "the mountpath's objects directory is gone");
    }
    FileOps.createDirectories(dir);
  }
}
