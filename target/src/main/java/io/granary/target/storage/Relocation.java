package io.granary.target.storage;

import io.granary.clustermap.bucket.BucketProps;
import io.granary.target.meta.MetaStore;
import io.granary.target.meta.ObjectMeta;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.StandardOpenOption;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.concurrent.locks.Lock;
import java.util.function.Predicate;

/**
 * Objects that move between targets (rebalance, get-from-neighbor) as the store sees them: opened for sending
 * without counting as a read, received and committed only over an older copy, removed at the source only when
 * unchanged since they were sent, and deletes remembered while objects move so a copy in flight cannot bring a
 * deleted object back.
 *
 * <p>"Newer" is the object's mtime: the time the target that accepted the write committed it (epoch ms). A moved
 * copy replaces the receiver's copy only when strictly newer, so a PUT that lands on the new owner during the move
 * (committed later than the copy it replaces) wins; equal mtimes mean the same version. A delete made while a
 * rebalance runs leaves a tombstone with its time: a moved copy not newer than it is refused.
 */
public final class Relocation {
  private static final String TOMBSTONES = "tombstones";

  private final ObjectStore store;

  public Relocation(ObjectStore store) {
    this.store = store;
  }

  /** What happened to a copy sent to this target. */
  public enum Outcome {
    /** Committed: it is this target's copy now. */
    STORED,
    /** This target's copy is as new or newer: nothing changed. */
    KEPT,
    /** The object was deleted here after that copy was written: nothing changed. */
    DELETED
  }

  /**
   * Opens an object to send it elsewhere, or returns null when absent. Not an access: moving an object must not
   * make it look recently read to eviction.
   */
  public StoredObject open(BucketProps bucket, String name) throws IOException {
    ObjectLocation loc = store.locate(bucket, name);
    Lock read = store.locks().forDigest(loc.digest()).readLock();
    read.lock();
    try {
      ObjectMeta meta = loc.mountpath().meta().get(loc.key());
      if (meta == null) {
        return null;
      }
      try {
        return new StoredObject(meta, FileChannel.open(loc.file(), StandardOpenOption.READ));
      } catch (NoSuchFileException e) {
        throw new IOException("object '" + name + "' of " + bucket.bucket() + " has metadata but no file " + loc.file(),
            e);
      }
    } finally {
      read.unlock();
    }
  }

  /** The recorded access time of an object (epoch ms), or 0. */
  public long atime(BucketProps bucket, String name) throws IOException {
    ObjectLocation loc = store.locate(bucket, name);
    return loc.mountpath().meta().atime(loc.key());
  }

  /**
   * Starts receiving a copy described by {@code meta}: a work file on the object's mountpath whose content must
   * match {@code meta}'s size and checksum. Checks space like a PUT (507).
   */
  public PutOperation beginReceive(BucketProps bucket, String name, ObjectMeta meta) throws IOException {
    List<ExpectedChecksum> expected = meta.checksum().isEmpty() ? List.of()
        : List.of(new ExpectedChecksum(meta.checksumType(), meta.checksum()));
    return store.beginPut(bucket, name, new PutOptions(meta.size(), expected, false, null, null));
  }

  /**
   * Commits a received copy (its body complete in {@code op}) as exactly {@code meta}, unless this target holds a
   * copy as new or newer, or deleted the object later than {@code meta}'s mtime. Keeps the copy's access time.
   * Disk executor only.
   */
  public Outcome commitReceived(PutOperation op, ObjectMeta meta, long atime) throws IOException {
    ObjectLocation loc = op.location();
    Outcome[] why = {Outcome.STORED};
    boolean stored = op.finishAs(meta, current -> {
      if (current != null && current.mtime() >= meta.mtime()) {
        why[0] = Outcome.KEPT;
        return false;
      }
      if (current == null && tombstone(loc) >= meta.mtime()) {
        why[0] = Outcome.DELETED;
        return false;
      }
      return true;
    });
    if (stored && atime > 0) {
      loc.mountpath().meta().putAtimes(Map.of(loc.key(), atime));
    }
    return stored ? Outcome.STORED : why[0];
  }

  /**
   * Removes the copy that was sent, if it is still the version {@code sent} (a newer write that landed here since is
   * left alone). Disk executor only.
   *
   * @return whether it was removed
   */
  public boolean removeSent(BucketProps bucket, String name, ObjectMeta sent) throws IOException {
    return removeIf(bucket, name, sent::equals);
  }

  /** A copy that was sent and that its owner now holds: to be removed here if unchanged. */
  public record Sent(BucketProps bucket, String name, ObjectMeta meta) {
  }

  /**
   * Removes the copies that were sent, each only if it is still the version sent, with one synced metadata write per
   * mountpath for them all rather than one per object: a rebalance walk removes what a batch moved this way. The
   * objects' locks are held (taken in stripe order, so two such removals cannot deadlock) from the check until their
   * files are gone. Disk executor or a rebalance thread only.
   *
   * @return how many were removed
   */
  public int removeSent(List<Sent> sent) throws IOException {
    Map<Mountpath, List<ObjectLocation>> byMountpath = new LinkedHashMap<>();
    Map<ObjectLocation, ObjectMeta> expected = new HashMap<>();
    TreeMap<Integer, ReentrantReadWriteLock> stripes = new TreeMap<>();
    for (Sent s : sent) {
      ObjectLocation loc = store.locate(s.bucket(), s.name());
      byMountpath.computeIfAbsent(loc.mountpath(), m -> new ArrayList<>()).add(loc);
      expected.put(loc, s.meta());
      stripes.put(store.locks().stripe(loc.digest()), store.locks().forDigest(loc.digest()));
    }
    stripes.values().forEach(l -> l.writeLock().lock());
    try {
      int removed = 0;
      for (Map.Entry<Mountpath, List<ObjectLocation>> e : byMountpath.entrySet()) {
        List<ObjectLocation> gone = new ArrayList<>();
        List<String> keys = new ArrayList<>();
        for (ObjectLocation loc : e.getValue()) {
          ObjectMeta now = e.getKey().meta().get(loc.key());
          if (now != null && now.equals(expected.get(loc))) {
            gone.add(loc);
            keys.add(loc.key());
          }
        }
        if (keys.isEmpty()) {
          continue;
        }
        e.getKey().meta().deleteAll(keys); // metadata first, as for one object: a crash leaves files, not records
        for (ObjectLocation loc : gone) {
          loc.mountpath().usage().addObjects(-expected.get(loc).size());
          store.accessRecorder().removed(loc);
          Files.deleteIfExists(loc.file());
        }
        removed += gone.size();
      }
      return removed;
    } finally {
      stripes.values().forEach(l -> l.writeLock().unlock());
    }
  }

  /**
   * Removes this target's copy if it is not newer than {@code deletedAt} (a delete made on the owner while the
   * object moves). Disk executor only.
   *
   * @return whether a copy was removed
   */
  public boolean removeOlderThan(BucketProps bucket, String name, long deletedAt) throws IOException {
    return removeIf(bucket, name, now -> now.mtime() <= deletedAt);
  }

  /** Removes the object, under its write lock, when there is one and {@code test} accepts it as it is now. */
  private boolean removeIf(BucketProps bucket, String name, Predicate<ObjectMeta> test) throws IOException {
    ObjectLocation loc = store.locate(bucket, name);
    Lock write = store.locks().forDigest(loc.digest()).writeLock();
    write.lock();
    try {
      ObjectMeta now = loc.mountpath().meta().get(loc.key());
      if (now == null || !test.test(now)) {
        return false;
      }
      store.remove(loc, now);
      return true;
    } finally {
      write.unlock();
    }
  }

  /** Records (synced) that the object was deleted at {@code at}, epoch ms. Disk executor only. */
  public void tombstone(BucketProps bucket, String name, long at) throws IOException {
    ObjectLocation loc = store.locate(bucket, name);
    loc.mountpath().meta().column(TOMBSTONES).put(loc.key(), ByteBuffer.allocate(8).putLong(at).array());
  }

  /** When the object was deleted while objects moved (epoch ms), or 0. */
  long tombstone(ObjectLocation loc) throws IOException {
    byte[] v = loc.mountpath().meta().column(TOMBSTONES).get(loc.key());
    return v == null || v.length != 8 ? 0 : ByteBuffer.wrap(v).getLong();
  }

  /** Forgets every tombstone: once every object is on its owner, no moved copy can arrive any more. */
  public void clearTombstones() throws IOException {
    for (Mountpath mp : store.mountpaths()) {
      MetaStore.Column c = mp.meta().column(TOMBSTONES);
      c.clear();
    }
  }
}
