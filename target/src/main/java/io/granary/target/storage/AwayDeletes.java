package io.granary.target.storage;

import io.granary.target.meta.MetaStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Objects removed while a mountpath was disabled (column {@code away}, key {@code DISABLED_PATH \0 OBJECT_KEY}, value
 * the epoch ms of the removal). A disabled mountpath is not read, so a delete cannot remove the copy it may hold;
 * when it comes back, that copy is older than the delete and must not be served again. The record is written, synced,
 * to every readable mountpath before the delete itself (any one that stays remembers it); the check of a returning
 * mountpath reads it, and once the mountpath has joined its records are dropped.
 *
 * <p>A record for a mountpath must never outlive its return: a later absence would drop copies written after it.
 * Removals take the read lock from the moment they see the mountpath disabled until their record is written;
 * {@link #forget} takes the write lock once it is not disabled any more.
 */
public final class AwayDeletes {
  static final String COLUMN = "away";
  private static final Logger log = LoggerFactory.getLogger(AwayDeletes.class);

  private final String nodeId;
  private final MountpathRegistry registry;
  private final Copies copies;
  private final ReadWriteLock lock = new ReentrantReadWriteLock();

  AwayDeletes(String nodeId, MountpathRegistry registry, Copies copies) {
    this.nodeId = nodeId;
    this.registry = registry;
    this.copies = copies;
  }

  static String key(Path away, String objectKey) {
    return away + "\0" + objectKey;
  }

  /**
   * Records that {@code loc}'s object is being removed, for every disabled mountpath; nothing when none is. Caller
   * holds the object's write lock and removes it next. 503 when no readable mountpath could record it (then nothing
   * was removed).
   */
  void record(ObjectLocation loc) throws IOException {
    if (registry.current().entries().stream().noneMatch(e -> e.state() == MountpathState.DISABLED)) {
      return; // the common case: no mountpath away, nothing to remember
    }
    lock.readLock().lock();
    try {
      MountpathSet set = registry.current();
      List<Path> away = new ArrayList<>();
      for (MountpathSet.Entry e : set.entries()) {
        if (e.state() == MountpathState.DISABLED) {
          away.add(e.path());
        }
      }
      byte[] at = ByteBuffer.allocate(8).putLong(System.currentTimeMillis()).array();
      IOException failed = null;
      int written = 0;
      for (Mountpath mp : set.readable()) {
        try {
          for (Path p : away) {
            mp.meta().column(COLUMN).put(key(p, loc.key()), at);
          }
          written++;
        } catch (IOException e) {
          failed = e;
          copies.report(mp, e);
        }
      }
      if (written == 0 && failed != null) {
        throw copies.unavailable(loc.mountpath(), failed);
      }
    } finally {
      lock.readLock().unlock();
    }
  }

  /** Whether a readable mountpath other than {@code returning} recorded a removal of {@code objectKey} since it left. */
  public boolean removedWhileAway(Mountpath returning, String objectKey) throws IOException {
    String k = key(returning.root(), objectKey);
    for (Mountpath mp : registry.current().readable()) {
      if (mp != returning && mp.meta().column(COLUMN).get(k) != null) {
        return true;
      }
    }
    return false;
  }

  /**
   * Drops the records of {@code path} on every readable mountpath once it is served again (back and checked, or back
   * empty); nothing while it is not (disabled again meanwhile: the records made since are for its next return).
   */
  public void forget(Path path) throws IOException {
    lock.writeLock().lock();
    try {
      MountpathSet set = registry.current();
      if (set.entry(path).filter(e -> e.state().served()).isEmpty()) {
        return;
      }
      for (Mountpath mp : set.readable()) {
        mp.meta().column(COLUMN).deletePrefix(path + "\0");
      }
    } finally {
      lock.writeLock().unlock();
    }
  }

  /**
   * Copies the records {@code leaving} holds to every available mountpath before it is released: one attached after
   * a removal lacks it, and may be all that is left when the disabled mountpath comes back.
   */
  public void handOver(Mountpath leaving) throws IOException {
    List<Mountpath> to = registry.current().available();
    MetaStore.Column from = leaving.meta().column(COLUMN);
    long[] n = {0};
    IOException[] failed = {null};
    from.scan("", null, (k, v) -> {
      for (Mountpath mp : to) {
        try {
          mp.meta().column(COLUMN).put(k, v);
        } catch (IOException e) {
          failed[0] = e;
          return false;
        }
      }
      n[0]++;
      return true;
    });
    if (failed[0] != null) {
      throw failed[0];
    }
    if (n[0] > 0) {
      log.info("node={} mountpath={} handed {} records of objects removed while a mountpath was away to {}", nodeId,
          leaving, n[0], to);
    }
  }
}
