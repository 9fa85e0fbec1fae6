package io.granary.target.storage;

import io.granary.clustermap.bucket.BucketProps;
import io.granary.target.meta.MetaStore;
import io.granary.target.meta.ObjectMeta;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.concurrent.locks.Lock;
import java.util.function.LongPredicate;
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
  private final LongPredicate ownedHere;

  /**
   * @param ownedHere whether this target owns an object (by its placement digest) under the cluster map it holds
   *     now: a copy sent away is never removed from its owner. Without that check, a copy sent off under one map
   *     and acknowledged by the target that owned it then is lost when a newer map makes this target its owner
   *     again and the other target, finding the copy here, drops its own.
   */
  public Relocation(ObjectStore store, LongPredicate ownedHere) {
    this.store = store;
    this.ownedHere = ownedHere;
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
      Copies.Copy c = store.copies().find(loc);
      return c == null ? null : new StoredObject(c.meta(), store.openFile(c, loc));
    } finally {
      read.unlock();
    }
  }

  /** The size of the copy held here, or -1 when there is none. Not an access. */
  public long size(BucketProps bucket, String name) throws IOException {
    Copies.Copy c = store.copies().find(store.locate(bucket, name));
    return c == null ? -1 : c.meta().size();
  }

  /** The recorded access time of an object (epoch ms) where its copy is, or 0. */
  public long atime(BucketProps bucket, String name) throws IOException {
    Copies.Copy c = store.copies().find(store.locate(bucket, name));
    return c == null ? 0 : c.location().mountpath().meta().atime(c.location().key());
  }

  /** The metadata of this target's copy of the object, or null when it holds none. */
  public ObjectMeta current(BucketProps bucket, String name) throws IOException {
    return store.stat(bucket, name);
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
    return commitReceived(op, meta, atime, WriteCondition.NONE);
  }

  /**
   * {@link #commitReceived(PutOperation, ObjectMeta, long)}, only if {@code condition} holds for this target's copy
   * at the commit (a completed multipart upload sent by the target that held it); otherwise the condition's answer
   * is thrown and nothing changes. Disk executor only.
   */
  public Outcome commitReceived(PutOperation op, ObjectMeta sent, long atime, WriteCondition condition)
      throws IOException {
    ObjectLocation loc = op.location();
    // Mirror copies are the sender's, on its mountpaths: this target makes its own (its commit queues them).
    ObjectMeta meta = sent.copies().isEmpty() ? sent : sent.withCopies(List.of());
    Outcome[] why = {Outcome.STORED};
    boolean stored = op.finishAs(meta, current -> {
      condition.check(current, loc.bucket().bucket().toString(), loc.name());
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
    return removeCopies(bucket, name, m -> m.withCopies(List.of()).equals(sent.withCopies(List.of())), true);
  }

  /** A copy that was sent and that its owner now holds: to be removed here if unchanged. */
  public record Sent(BucketProps bucket, String name, ObjectMeta meta) {
  }

  /**
   * Removes the copies that were sent, each only if it is still the version sent, with one synced metadata write per
   * mountpath for them all rather than one per object: a rebalance walk removes what a batch moved this way. The
   * objects' locks are held (taken in stripe order, so two such removals cannot deadlock) from the check until their
   * files are gone. A copy not on its HRW mountpath (a resilver is moving it) is removed on its own. Rebalance
   * threads only.
   *
   * @return how many were removed
   */
  public int removeSent(List<Sent> sent) throws IOException {
    TreeMap<Integer, ReentrantReadWriteLock> stripes = new TreeMap<>();
    for (Sent s : sent) {
      long digest = store.locate(s.bucket(), s.name()).digest();
      stripes.put(store.locks().stripe(digest), store.locks().forDigest(digest));
    }
    stripes.values().forEach(l -> l.writeLock().lock());
    try {
      Map<Mountpath, List<Copies.Copy>> byMountpath = new LinkedHashMap<>();
      List<Sent> oneByOne = new ArrayList<>();
      for (Sent s : sent) {
        ObjectLocation loc = store.locate(s.bucket(), s.name());
        if (ownedHere.test(loc.digest())) {
          continue; // placed back here since it was sent: this is the owner's copy now
        }
        ObjectMeta now = store.copies().metaOn(loc.mountpath(), loc.key());
        if (now != null && now.equals(s.meta()) && now.copies().isEmpty()) { // mirrored: one by one, with its copies
          byMountpath.computeIfAbsent(loc.mountpath(), m -> new ArrayList<>()).add(new Copies.Copy(loc, now));
        } else {
          oneByOne.add(s);
        }
      }
      int removed = 0;
      for (Map.Entry<Mountpath, List<Copies.Copy>> e : byMountpath.entrySet()) {
        e.getKey().meta().deleteAll(e.getValue().stream().map(c -> c.location().key()).toList());
        for (Copies.Copy c : e.getValue()) { // metadata first, as for one object: a crash leaves files, not records
          c.location().mountpath().usage().addObjects(-1, -c.meta().size());
          store.accessRecorder().removed(c.location());
          Files.deleteIfExists(c.location().file());
        }
        removed += e.getValue().size();
      }
      for (Sent s : oneByOne) {
        removed += removeSent(s.bucket(), s.name(), s.meta()) ? 1 : 0; // the locks are reentrant
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
    return removeCopies(bucket, name, m -> m.mtime() <= deletedAt, false);
  }

  /**
   * Removes the copies of the object, on any readable mountpath, whose record {@code which} accepts; with
   * {@code unlessOwned}, none while this target owns the object (checked under the object's lock, which a received
   * copy's commit holds too).
   */
  private boolean removeCopies(BucketProps bucket, String name, Predicate<ObjectMeta> which, boolean unlessOwned)
      throws IOException {
    ObjectLocation loc = store.locate(bucket, name);
    Lock write = store.locks().forDigest(loc.digest()).writeLock();
    write.lock();
    try {
      if (unlessOwned && ownedHere.test(loc.digest())) {
        return false;
      }
      boolean removed = false;
      ObjectMeta now = store.copies().metaOn(loc.mountpath(), loc.key());
      if (now != null && which.test(now)) {
        store.removeOrFail(loc, now);
        removed = true;
      }
      return store.copies().removeOthers(loc, which, store::remove) || removed;
    } finally {
      write.unlock();
    }
  }

  /** Records (synced) that the object was deleted at {@code at}, epoch ms. Disk executor only. */
  public void tombstone(BucketProps bucket, String name, long at) throws IOException {
    ObjectLocation loc = store.locate(bucket, name);
    loc.mountpath().meta().column(TOMBSTONES).put(loc.key(), ByteBuffer.allocate(8).putLong(at).array());
  }

  /** Whether the object was deleted here while objects moved (a RocksDB point read per mountpath). */
  public boolean deletedWhileMoving(BucketProps bucket, String name) throws IOException {
    return tombstone(store.locate(bucket, name)) > 0;
  }

  /**
   * When the object was deleted while objects moved (epoch ms), or 0: the latest tombstone on any readable mountpath
   * (the HRW mountpath the delete wrote it on may have changed since).
   */
  long tombstone(ObjectLocation loc) throws IOException {
    long latest = 0;
    for (Mountpath mp : store.mountpaths()) {
      byte[] v = mp.meta().column(TOMBSTONES).get(loc.key());
      latest = v == null || v.length != 8 ? latest : Math.max(latest, ByteBuffer.wrap(v).getLong());
    }
    return latest;
  }

  /** Forgets every tombstone: once every object is on its owner, no moved copy can arrive any more. */
  public void clearTombstones() throws IOException {
    for (Mountpath mp : store.mountpaths()) {
      MetaStore.Column c = mp.meta().column(TOMBSTONES);
      c.clear();
    }
  }
}
