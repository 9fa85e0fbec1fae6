package io.granary.target.storage;

import io.granary.clustermap.acl.CannedAcl;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.common.error.ServiceUnavailableException;
import io.granary.target.meta.MetaStore;
import io.granary.target.meta.ObjectMeta;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
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
  private volatile Runnable beforeSync = () -> { }; // tests: runs after the unsynced deletes, no lock held

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
    return removeSent(List.of(new Sent(bucket, name, sent))) > 0;
  }

  /** A copy that was sent and that its owner now holds: to be removed here if unchanged. */
  public record Sent(BucketProps bucket, String name, ObjectMeta meta) {
  }

  /**
   * Removes the copies that were sent, each only if it is still the version sent, with one metadata sync per
   * mountpath for them all rather than one per object: a rebalance walk removes what a batch moved this way.
   *
   * <p>No lock is held across a sync. GETs take an object's lock on the event loop, and a batch's locks cover many
   * of the 1,024 stripes, so holding them through a write-ahead-log sync (hundreds of milliseconds while the
   * rebalance writes) stalled the sender's foreground reads, of objects that stay too (bench/rebalance.sh, JFR).
   * So: under the locks (taken in stripe order, so two removals cannot deadlock) each record is checked and deleted
   * unsynced, which readers see at once; then the deletes are synced; then, under each lock again, a file is
   * unlinked only if no record came back for it meanwhile. A crash before the sync brings records back with their
   * files; after it, leaves unreferenced files, never a record without its file. A copy not on its HRW mountpath (a
   * resilver is moving it) is removed on its own. Rebalance threads only.
   *
   * @return how many were removed
   */
  public int removeSent(List<Sent> sent) throws IOException {
    Map<Mountpath, List<Copies.Copy>> byMountpath = new LinkedHashMap<>();
    List<Sent> oneByOne = new ArrayList<>();
    Collection<ReentrantReadWriteLock> locks = stripesOf(sent);
    locks.forEach(l -> l.writeLock().lock());
    try {
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
      for (Map.Entry<Mountpath, List<Copies.Copy>> e : byMountpath.entrySet()) {
        e.getKey().meta().deleteAllUnsynced(e.getValue().stream().map(c -> c.location().key()).toList());
        for (Copies.Copy c : e.getValue()) {
          c.location().mountpath().usage().addObjects(-1, -c.meta().size());
          store.accessRecorder().removed(c.location());
        }
      }
    } finally {
      locks.forEach(l -> l.writeLock().unlock());
    }
    beforeSync.run();
    int removed = 0;
    for (Map.Entry<Mountpath, List<Copies.Copy>> e : byMountpath.entrySet()) {
      e.getKey().meta().syncWal(); // metadata first, as for one object: a crash leaves files, not records
      for (Copies.Copy c : e.getValue()) {
        unlinkUnlessRecorded(c.location());
      }
      removed += e.getValue().size();
    }
    for (Sent s : oneByOne) { // the version sent, whatever mirror copies it has gained or lost since
      ObjectMeta version = s.meta().withCopies(List.of());
      removed += removeCopies(s.bucket(), s.name(), m -> m.withCopies(List.of()).equals(version), true) ? 1 : 0;
    }
    return removed;
  }

  /** Runs {@code hook} in each batch removal between the unsynced deletes and their sync (tests). */
  void beforeSync(Runnable hook) {
    this.beforeSync = hook;
  }

  /** The write locks of the objects' stripes, in stripe order. */
  private Collection<ReentrantReadWriteLock> stripesOf(List<Sent> sent) {
    TreeMap<Integer, ReentrantReadWriteLock> stripes = new TreeMap<>();
    for (Sent s : sent) {
      long digest = store.locate(s.bucket(), s.name()).digest();
      stripes.put(store.locks().stripe(digest), store.locks().forDigest(digest));
    }
    return stripes.values();
  }

  /** Unlinks a removed copy's file, unless a record for it came back since (a copy committed here again). */
  private void unlinkUnlessRecorded(ObjectLocation loc) throws IOException {
    Lock write = store.locks().forDigest(loc.digest()).writeLock();
    write.lock();
    try {
      if (loc.mountpath().meta().get(loc.key()) == null) {
        Files.deleteIfExists(loc.file());
      }
    } finally {
      write.unlock();
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

  /**
   * Replaces the ACL in the record of this target's copy (an ACL is not a new version: mtime and ETag stay), only
   * while this target owns the object under the map it holds; otherwise 503 ObjectMoving, nothing changed. Returns
   * the new record, or null when there is no copy here. Disk executor only.
   *
   * <p>Why only the owner: a moved copy replaces the receiver's only when strictly newer (its mtime), and an ACL change
   * keeps the mtime. A change made on a previous owner after it sent the object would be undone there: the receiver
   * keeps the record sent before the change (the same version to it), and the changed copy here is either removed as
   * "not needed" or, no longer equal to what was sent, left behind where nobody reads it. The ownership check runs
   * under the object's write lock, which a send's {@link #open} (read) and {@link #removeSent} (write) take too, so
   * a change is either made before this target could send the object under a newer map, or refused.
   */
  public ObjectMeta changeAcl(BucketProps bucket, String name, CannedAcl acl) throws IOException {
    ObjectLocation loc = store.locate(bucket, name);
    Lock write = store.locks().forDigest(loc.digest()).writeLock();
    write.lock();
    try {
      if (!ownedHere.test(loc.digest())) {
        throw new ServiceUnavailableException(ServiceUnavailableException.OBJECT_MOVING, "object '" + name
            + "' of bucket " + bucket.bucket() + " is moving to another target; its ACL is changed there, retry",
            1);
      }
      return store.updateAcl(bucket, name, acl); // the lock is reentrant
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
