package io.granary.target.storage;

import io.granary.clustermap.acl.CannedAcl;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.hrw.PlacementKey;
import io.granary.common.error.InsufficientStorageException;
import io.granary.common.listing.ListPage;
import io.granary.target.meta.CommitIntent;
import io.granary.target.meta.MetaStore;
import io.granary.target.meta.ObjectMeta;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;
import java.util.function.BiConsumer;
import java.util.function.LongPredicate;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The objects of one target across its mountpaths: where each lives (HRW over the available mountpaths with the
 * object's placement digest), how it is written, read, deleted and listed.
 *
 * <p>Commit protocol, crash-safe at every step: (1) the body is in a fsynced work file; (2) a commit intent is
 * written to RocksDB with sync; (3) under the object's write lock the work file is renamed over the object file
 * and the metadata published, dropping the intent. A crash after (2) is finished at the next start by
 * {@link Recovery}; before (2) the work file is simply removed. Readers take the read lock to pair metadata with
 * the file it describes.
 *
 * <p>Mountpaths change at run time ({@link #updateMountpaths}: attach, detach, disable). While objects move to their
 * new HRW mountpath a copy may be elsewhere, so a lookup that misses on the HRW mountpath looks on every other
 * served one and takes the newest copy (point reads; an HRW hit costs what it always did). A commit removes older
 * copies of its object on other mountpaths, a delete removes every copy (and, while a mountpath is disabled, is
 * recorded so its copy does not come back with it), a listing names each object once.
 */
public final class ObjectStore implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ObjectStore.class);
  private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(() -> {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  });

  private final String nodeId;
  private final MountpathRegistry registry;
  private final Copies copies; // an object's copies across the readable mountpaths
  private final CommitProtocol commits; // steps 2 and 3 of every commit
  private final AwayDeletes awayDeletes; // removals a disabled mountpath's copies must not undo
  private final Map<Mountpath, List<CommitIntent>> recovered = new IdentityHashMap<>(); // registry's lock, and own
  private final NameLocks locks = new NameLocks();
  private final CheckedWrites checkedWrites = new CheckedWrites(); // conditional writes that go remote first
  private final MirrorReads mirrorReads; // reads of objects with mirror copies: a lost main file falls back
  private final long reserveBytes;
  private final AtomicLong workSeq = new AtomicLong();
  private final String pidHex = Long.toHexString(ProcessHandle.current().pid());
  private volatile SpaceGuard spaceGuard = SpaceGuard.NONE;         // capacity policy beyond the reserve
  private volatile AccessRecorder accessRecorder = AccessRecorder.NONE; // access times, kept apart from metadata

  /** Makes the entries of a directory durable (fsync of the directory). */
  @FunctionalInterface
  interface DirectorySync {
    void sync(Path dir) throws IOException;
  }

  private ObjectStore(String nodeId, long reserveBytes) {
    this.nodeId = nodeId;
    this.reserveBytes = reserveBytes;
    this.registry = new MountpathRegistry(nodeId, new MountpathRegistry.Preparer() {
      @Override
      public void prepare(Mountpath mp) throws IOException {
        ObjectStore.this.prepare(mp);
      }

      @Override
      public void prepared(MountpathSet set) throws IOException {
        removeOlderCopiesOfRecovered(set);
      }
    });
    this.copies = new Copies(nodeId, registry);
    this.commits = new CommitProtocol(registry, copies, locks, this::remove);
    this.awayDeletes = new AwayDeletes(nodeId, registry, copies);
    this.mirrorReads = new MirrorReads(this);
  }

  /**
   * Opens the store over mountpaths that are all available, finishes commits a crash interrupted, and removes
   * leftover work files.
   *
   * @param reserveBytes free space each mountpath keeps; a PUT that would eat into it gets 507
   */
  public static ObjectStore open(String nodeId, List<Mountpath> mountpaths, long reserveBytes) throws IOException {
    return open(nodeId, MountpathSet.allAvailable(mountpaths), reserveBytes);
  }

  /** Opens the store over {@code mountpaths} in their states; every readable one is recovered first. */
  public static ObjectStore open(String nodeId, MountpathSet mountpaths, long reserveBytes) throws IOException {
    ObjectStore store = new ObjectStore(nodeId, reserveBytes);
    store.registry.init(mountpaths);
    return store;
  }

  /** Recovers a mountpath and counts what it holds, before reads can see it. */
  private void prepare(Mountpath mp) throws IOException {
    List<CommitIntent> finished = Recovery.recover(nodeId, mp);
    if (!finished.isEmpty()) {
      synchronized (recovered) { // mountpaths are prepared at once at start
        recovered.put(mp, finished);
      }
    }
    long started = System.nanoTime();
    MetaStore.Totals t = mp.meta().totals("");
    mp.usage().setObjects(t.objects(), t.bytes()); // from here on, every change adjusts the counters
    log.debug("node={} mountpath={} holds {} objects, {} bytes (counted in {} ms)", nodeId, mp, t.objects(),
        t.bytes(), (System.nanoTime() - started) / 1_000_000);
  }

  /** Older copies elsewhere of the objects whose commits recovery finished, once every mountpath is prepared. */
  private void removeOlderCopiesOfRecovered(MountpathSet set) throws IOException {
    for (Map.Entry<Mountpath, List<CommitIntent>> e : recovered.entrySet()) {
      Recovery.removeOlderCopies(nodeId, e.getKey(), e.getValue(), set.readable());
    }
    recovered.clear();
  }

  /** Installs the capacity policy {@link #beginPut} applies after the reserve check. */
  public void setSpaceGuard(SpaceGuard guard) {
    this.spaceGuard = guard == null ? SpaceGuard.NONE : guard;
  }

  /** Installs what is told of every read and removal (access times for eviction). */
  public void setAccessRecorder(AccessRecorder recorder) {
    this.accessRecorder = recorder == null ? AccessRecorder.NONE : recorder;
  }

  /** Installs what is told of I/O errors on a mountpath in a request's path (the health checker). */
  public void setFaultListener(FaultListener listener) {
    copies.setFaultListener(listener);
  }

  /** Installs what is told of a read served from a mirror copy (mirroring: counted, the lost copy restored). */
  public void setFallbackListener(FallbackListener listener) {
    mirrorReads.setListener(listener);
  }

  /** Installs what is told of an object committed off its HRW mountpath (the resilver). */
  public void setMisplacedListener(MisplacedListener listener) {
    commits.setMisplacedListener(listener);
  }

  SpaceGuard spaceGuard() {
    return spaceGuard;
  }

  /** The mountpaths now: their states, which take new objects, which are read. */
  public MountpathSet mountpathSet() {
    return registry.current();
  }

  /** What a removal made while a mountpath was disabled leaves behind for its return (the resilver checks it). */
  public AwayDeletes awayDeletes() {
    return awayDeletes;
  }

  /** The mountpaths whose metadata the store uses now (available, attaching, detaching): a snapshot. */
  public List<Mountpath> mountpaths() {
    return registry.current().readable();
  }

  /**
   * Changes the mountpaths: {@code change} maps the current set to the next. A mountpath that becomes readable is
   * recovered and counted first. Background threads only.
   */
  public MountpathSet updateMountpaths(UnaryOperator<MountpathSet> change) throws IOException {
    return registry.update(change);
  }

  /** Called with (old, new) after every change of the mountpaths. */
  public void onMountpathsChanged(BiConsumer<MountpathSet, MountpathSet> listener) {
    registry.onChange(listener);
  }

  /** Closes a mountpath no longer read (detached, or disabled), once calls still using it are done. */
  public void release(Mountpath mp) throws IOException {
    registry.release(mp);
  }

  /** The id of the target this store belongs to (for log lines). */
  public String nodeId() {
    return nodeId;
  }

  Logger log() {
    return log;
  }

  /** Where {@code name} of {@code bucket} lives on this target: its HRW mountpath. 503 with no mountpath. */
  public ObjectLocation locate(BucketProps bucket, String name) {
    long digest = PlacementKey.digest(bucket.bucket(), name);
    Mountpath mp = registry.current().pick(digest);
    byte[] h = SHA256.get().digest(name.getBytes(StandardCharsets.UTF_8));
    String hex = HexFormat.of().formatHex(h);
    // One Path.of of a built string: this runs on every request, and each resolve() re-normalizes.
    Path file = Path.of(mp.objectsDir().toString(), bucket.bucket().provider().wireName(), bucket.bucket().name(),
        bucket.id(), hex.substring(0, 2), hex);
    return new ObjectLocation(bucket, name, digest, mp, bucketPrefix(bucket) + name, file);
  }

  private static Path bucketDir(Mountpath mp, BucketProps b) {
    return mp.objectsDir().resolve(b.bucket().provider().wireName()).resolve(b.bucket().name()).resolve(b.id());
  }

  /** The metadata-key prefix of a bucket incarnation; a re-created bucket has a new id and sees nothing old. */
  public static String bucketPrefix(BucketProps b) {
    return b.bucket().key() + "/" + b.id() + "/";
  }

  /** The object's metadata, or null when absent. Cheap enough for the event loop. */
  public ObjectMeta stat(BucketProps bucket, String name) throws IOException {
    Copies.Copy c = copies.find(locate(bucket, name));
    return c == null ? null : c.meta();
  }

  /** Opens the object for reading, or returns null when absent. */
  public StoredObject open(BucketProps bucket, String name) throws IOException {
    ObjectLocation loc = locate(bucket, name);
    Lock read = locks.forDigest(loc.digest()).readLock();
    read.lock();
    try {
      Copies.Copy c = copies.find(loc);
      if (c == null) {
        return null;
      }
      StoredObject obj = new StoredObject(c.meta(), openFile(c, loc));
      accessRecorder.accessed(c.location());
      return obj;
    } finally {
      read.unlock();
    }
  }

  /**
   * Opens copy {@code c} of the object at {@code loc} for reading; for an object with mirror copies a missing or
   * unreadable file falls back to a copy ({@link MirrorReads}). Caller holds the read lock.
   */
  FileChannel openFile(Copies.Copy c, ObjectLocation loc) throws IOException {
    return c.meta().copies().isEmpty() ? openFile(c, loc.bucket(), loc.name()) : mirrorReads.open(c, loc);
  }

  /** Opens a copy's file for reading; a missing or unreadable file is a mountpath fault (503). */
  FileChannel openFile(Copies.Copy c, BucketProps bucket, String name) throws IOException {
    try {
      return FileChannel.open(c.location().file(), StandardOpenOption.READ);
    } catch (IOException e) {
      // WARN per object: the mountpath's health check decides, and logs once at ERROR, whether the disk failed
      log.warn("node={} mountpath={} bucket={} object={}: metadata present but file {} cannot be opened: {}",
          nodeId, c.location().mountpath(), bucket.bucket(), name, c.location().file(), e.toString());
      throw copies.unavailable(c.location().mountpath(), e);
    }
  }

  /**
   * Starts a PUT: checks space and opens a work file on the object's mountpath. Runs on the event loop (an
   * open(2) of a new file in a local directory).
   */
  public PutOperation beginPut(BucketProps bucket, String name, PutOptions options) throws IOException {
    ObjectLocation loc = locate(bucket, name);
    checkSpace(loc, options.declaredLength());
    Path work = newWorkFile(loc);
    FileChannel ch;
    try {
      ch = FileChannel.open(work, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    } catch (IOException e) {
      throw copies.unavailable(loc.mountpath(), e);
    }
    return new PutOperation(this, loc, work, ch, options);
  }

  /**
   * Refuses with 507 ({@link InsufficientStorageException}) when the object's mountpath has no room for
   * {@code length} more bytes (-1: unknown): the free-space reserve, then the installed {@link SpaceGuard}
   * (capacity watermarks; it may start eviction). Cheap enough for the event loop. What a cold GET checks before it
   * writes a remote object; anything that writes a work file without {@link #beginPut} calls this (or
   * {@link #reserve}) first.
   */
  public void checkSpace(ObjectLocation loc, long length) throws IOException {
    Mountpath mp = loc.mountpath();
    long bytes = Math.max(length, 0);
    long usable = mp.usableSpace();
    if (usable - bytes < reserveBytes) {
      throw new InsufficientStorageException("mountpath " + mp + " of " + nodeId + " has " + usable
          + " bytes free; storing " + bytes + " more would leave less than the " + reserveBytes + "-byte reserve");
    }
    spaceGuard.admit(mp, bytes);
  }

  /**
   * {@link #checkSpace} and, when admitted, counts {@code length} bytes as a work file in progress on the object's
   * mountpath until the returned reservation is closed: what a cold GET holds from before it writes its work file
   * until after it commits or discards it, so concurrent writers see the space as taken.
   */
  public SpaceReservation reserve(ObjectLocation loc, long length) throws IOException {
    checkSpace(loc, length);
    return new SpaceReservation(loc.mountpath().usage(), Math.max(length, 0));
  }

  /**
   * Commits a complete, fsynced work file on the object's mountpath as the object's new version (steps 2 and 3
   * of the commit protocol). Disk executor only.
   */
  public void commitWorkFile(ObjectLocation loc, Path workFile, ObjectMeta meta) throws IOException {
    String relWork = loc.mountpath().root().relativize(workFile).toString();
    commit(new CommitIntent(loc.key(), relWork, loc.relativeFile(), meta), loc);
  }

  /**
   * {@link #commitWorkFile}, when {@code condition} holds for the object's newest copy under its write lock, atomically
   * with the rename. Otherwise the work file is removed, nothing changes, and the condition's answer is thrown (412
   * PreconditionFailed, or 404 for If-Match on a missing object). Disk executor only.
   */
  public void commitWorkFile(ObjectLocation loc, Path workFile, ObjectMeta meta, WriteCondition condition)
      throws IOException {
    String relWork = loc.mountpath().root().relativize(workFile).toString();
    commits.commit(new CommitIntent(loc.key(), relWork, loc.relativeFile(), meta), loc, condition.on(loc));
  }

  /**
   * Runs {@code step} (write to the remote store, then commit here) after checking {@code condition} against the
   * object now, while no other conditional write of the object runs on this target ({@link CheckedWrites}). With
   * no condition the step just runs. Throws the condition's answer without running the step. Disk executor only.
   */
  public <T> T writeChecked(ObjectLocation loc, WriteCondition condition, CheckedStep<T> step) throws IOException {
    return condition.isNone() ? step.run() : checkedWrites.run(this, loc, condition, step);
  }

  /** The last steps of a write that {@link #writeChecked} runs. */
  @FunctionalInterface
  public interface CheckedStep<T> {
    T run() throws IOException;
  }

  /** A new, empty work file on the object's mountpath, for content assembled by the caller (multipart). */
  public Path newWorkFile(ObjectLocation loc) {
    return loc.mountpath().workDir().resolve(loc.file().getFileName().toString().substring(0, 16) + "."
        + Long.toHexString(workSeq.incrementAndGet()) + "." + pidHex);
  }

  /**
   * Steps (2) and (3) of the commit protocol. Disk executor only.
   *
   * <p>The intent is dropped only after the object's directory is fsynced: a rename is durable only then, and an
   * intent that outlives a power loss is what finishes an undone rename at the next start. Publishing the metadata
   * and dropping the intent are separate writes for that reason, and the directory sync runs outside the object's
   * lock so readers never wait for it.
   */
  void commit(CommitIntent intent, ObjectLocation loc) throws IOException {
    commits.commit(intent, loc, null);
  }

  /**
   * The commit protocol, when {@code condition} (null: always) accepts the newest copy this target holds under the
   * object's write lock ({@link CommitProtocol}).
   *
   * @return whether the work file was committed
   */
  boolean commit(CommitIntent intent, ObjectLocation loc, CommitCondition condition) throws IOException {
    return commits.commit(intent, loc, condition);
  }

  /**
   * Decides, under the object's write lock, whether a commit may replace the copy this target holds. Refusing, by
   * returning false or by throwing a RuntimeException (an API error to answer with), removes the work file.
   */
  @FunctionalInterface
  public interface CommitCondition {
    /** @param current the object's newest metadata now, on any readable mountpath, or null when there is none */
    boolean accept(ObjectMeta current) throws IOException;
  }

  /** Told of every committed object, after its commit is durable (disk executor). Must not block for long. */
  @FunctionalInterface
  public interface CommitListener {
    CommitListener NONE = (loc, meta) -> { };

    void committed(ObjectLocation loc, ObjectMeta meta);
  }

  /**
   * Adds what is told of every commit, in the order added: the rebalancer (a write this target does not own is
   * handed on), mirroring (copies of the new version are made).
   */
  public void addCommitListener(CommitListener listener) {
    commits.addCommitListener(listener);
  }

  NameLocks locks() {
    return locks;
  }

  Copies copies() {
    return copies;
  }

  AccessRecorder accessRecorder() {
    return accessRecorder;
  }

  /** Replaces how directories are synced after a commit's rename (tests check the order of the steps). */
  void directorySync(DirectorySync sync) {
    commits.directorySync(sync);
  }

  /**
   * Replaces the ACL in the record of the object's newest copy, under its write lock; content, mtime and ETag stay
   * (an ACL is not a new version). Returns the new record, or null when the object does not exist. Disk executor
   * only. Only through {@link Relocation#changeAcl}, which makes it on the object's owner alone.
   */
  ObjectMeta updateAcl(BucketProps bucket, String name, CannedAcl acl) throws IOException {
    ObjectLocation loc = locate(bucket, name);
    Lock write = locks.forDigest(loc.digest()).writeLock();
    write.lock();
    try {
      Copies.Copy c = copies.find(loc);
      if (c == null) {
        return null;
      }
      ObjectMeta updated = c.meta().withAcl(acl);
      try {
        c.location().mountpath().meta().publish(c.location().key(), updated);
      } catch (IOException e) {
        throw copies.unavailable(c.location().mountpath(), e);
      }
      if (!c.meta().copies().isEmpty()) {
        new MirrorCopies(this).aclChanged(c, acl);
      }
      return updated;
    } finally {
      write.unlock();
    }
  }

  /**
   * Deletes the object, every copy of it; false when it did not exist. While a mountpath is disabled the delete is
   * recorded first, whether or not a copy was found: the disabled one may hold one, and must not bring it back.
   * Disk executor only.
   */
  public boolean delete(BucketProps bucket, String name) throws IOException {
    ObjectLocation loc = locate(bucket, name);
    Lock write = locks.forDigest(loc.digest()).writeLock();
    write.lock();
    try {
      awayDeletes.record(loc);
      ObjectMeta meta = copies.metaOn(loc.mountpath(), loc.key());
      boolean elsewhere = copies.removeOthers(loc, m -> true, this::remove);
      if (meta == null) {
        return elsewhere;
      }
      removeOrFail(loc, meta);
      return true;
    } finally {
      write.unlock();
    }
  }

  /**
   * Evicts a cached copy the caller picked from a metadata scan, unless it changed since: deleted only when its
   * mtime is still {@code mtime} (not overwritten) and {@code idle} accepts its current access time (not read
   * since). Older copies on other mountpaths go with it, so none of them shows through. Takes the object's write
   * lock; a reader that already opened the file keeps reading it (unlink leaves open descriptors valid). Background
   * threads only.
   *
   * @param idle given the object's latest access time (epoch ms, 0 when none recorded), whether to evict it
   * @return bytes freed, or -1 when the object was left alone
   */
  public long evict(ObjectLocation loc, long mtime, LongPredicate idle) throws IOException {
    Lock write = locks.forDigest(loc.digest()).writeLock();
    write.lock();
    try {
      ObjectMeta meta = loc.mountpath().meta().get(loc.key());
      if (meta == null || meta.mtime() != mtime || !idle.test(loc.mountpath().meta().atime(loc.key()))) {
        return -1;
      }
      awayDeletes.record(loc);
      remove(loc, meta);
      copies.removeOthers(loc, m -> m.mtime() <= mtime, this::remove);
      return meta.size();
    } finally {
      write.unlock();
    }
  }

  /** {@link #remove}, reporting an I/O error on the copy's mountpath (503). Caller holds the write lock. */
  void removeOrFail(ObjectLocation loc, ObjectMeta meta) throws IOException {
    try {
      remove(loc, meta);
    } catch (IOException e) {
      throw copies.unavailable(loc.mountpath(), e);
    }
  }

  /** Drops an object's metadata, access time and file. Caller holds the write lock. */
  void remove(ObjectLocation loc, ObjectMeta meta) throws IOException {
    loc.mountpath().meta().delete(loc.key()); // metadata first: a crash now leaves an unreferenced file, not a dangling record
    loc.mountpath().usage().addObjects(-1, -meta.size());
    accessRecorder.removed(loc);
    Files.deleteIfExists(loc.file());
  }

  /**
   * Lists up to {@code limit} items of the bucket, objects and (with a delimiter) common prefixes, whose names start
   * with {@code prefix} and sort after {@code startAfter} (may be null), merged across mountpaths in name order.
   */
  public ListPage list(BucketProps bucket, String prefix, String startAfter, String delimiter, int limit)
      throws IOException {
    String bp = bucketPrefix(bucket);
    MergedListing merged = new MergedListing(bp);
    for (Mountpath mp : registry.current().served()) {
      try {
        merged.add(mp.meta().list(bp + prefix, startAfter == null ? null : bp + startAfter, delimiter, limit));
      } catch (IOException e) {
        if (registry.current().isServed(mp)) {
          throw copies.unavailable(mp, e);
        } // else it left while listed: its objects are not read any more
      }
    }
    return merged.page(limit);
  }

  /** Removes every object of a bucket incarnation: metadata at once, files via the trash directory. */
  public void destroyBucket(BucketProps bucket) throws IOException {
    for (Mountpath mp : registry.current().readable()) {
      MetaStore.Totals t = mp.meta().totals(bucketPrefix(bucket));
      mp.meta().deletePrefix(bucketPrefix(bucket));
      mp.usage().addObjects(-t.objects(), -t.bytes());
      Path dir = bucketDir(mp, bucket);
      if (Files.exists(dir)) {
        Path trash = mp.trashDir().resolve(bucket.bucket().name() + "." + bucket.id() + "." + System.nanoTime());
        FileOps.moveReplacing(dir, trash);
        FileOps.deleteTree(trash);
      }
    }
    log.info("node={} bucket={} destroyed local data of bucket id {}", nodeId, bucket.bucket(), bucket.id());
  }

  @Override
  public void close() throws IOException {
    IOException first = registry.closeAll();
    if (first != null) {
      throw first;
    }
  }
}
