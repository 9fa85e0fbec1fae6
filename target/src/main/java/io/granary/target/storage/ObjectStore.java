package io.granary.target.storage;

import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.NameOrder;
import io.granary.clustermap.hrw.PlacementKey;
import io.granary.clustermap.hrw.Rendezvous;
import io.granary.common.error.InsufficientStorageException;
import io.granary.common.error.InternalErrorException;
import io.granary.common.listing.Checksum;
import io.granary.common.listing.ListPage;
import io.granary.common.listing.ObjectEntry;
import io.granary.target.meta.MetaStore;
import io.granary.target.meta.CommitIntent;
import io.granary.target.meta.ObjectMeta;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;
import java.util.function.LongPredicate;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The objects of one target across its mountpaths: where each lives (HRW over mountpaths with the object's
 * placement digest), how it is written, read, deleted and listed.
 *
 * <p>Commit protocol, crash-safe at every step: (1) the body is in a fsynced work file; (2) a commit intent is
 * written to RocksDB with sync; (3) under the object's write lock the work file is renamed over the object file
 * and the metadata published, dropping the intent. A crash after (2) is finished at the next start by
 * {@link #recover}; before (2) the work file is simply removed. Readers take the read lock to pair metadata with
 * the file it describes.
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
  private final List<Mountpath> mountpaths;
  private final Rendezvous<Mountpath> hrw;
  private final NameLocks locks = new NameLocks();
  private final long reserveBytes;
  private final AtomicLong workSeq = new AtomicLong();
  private final String pidHex = Long.toHexString(ProcessHandle.current().pid());
  private volatile SpaceGuard spaceGuard = SpaceGuard.NONE;         // capacity policy beyond the reserve
  private volatile AccessRecorder accessRecorder = AccessRecorder.NONE; // access times, kept apart from metadata
  private DirectorySync directorySync = FileOps::syncDirectory; // makes a rename durable; tests observe it
  private volatile CommitListener commitListener = CommitListener.NONE; // hands on writes this target does not own

  /** Makes the entries of a directory durable (fsync of the directory). */
  @FunctionalInterface
  interface DirectorySync {
    void sync(Path dir) throws IOException;
  }

  private ObjectStore(String nodeId, List<Mountpath> mountpaths, long reserveBytes) {
    this.nodeId = nodeId;
    this.mountpaths = List.copyOf(mountpaths);
    this.hrw = Rendezvous.unweighted(this.mountpaths, Mountpath::id);
    this.reserveBytes = reserveBytes;
  }

  /**
   * Opens the mountpaths, finishes commits a crash interrupted, and removes leftover work files.
   *
   * @param reserveBytes free space each mountpath keeps; a PUT that would eat into it gets 507
   */
  public static ObjectStore open(String nodeId, List<Mountpath> mountpaths, long reserveBytes) throws IOException {
    ObjectStore store = new ObjectStore(nodeId, mountpaths, reserveBytes);
    for (Mountpath mp : mountpaths) {
      store.recover(mp);
      long started = System.nanoTime();
      mp.usage().setObjects(mp.meta().sizeOfPrefix("")); // from here on, every change adjusts the counter
      log.debug("node={} mountpath={} holds {} object bytes (counted in {} ms)", nodeId, mp,
          mp.usage().objectBytes(), (System.nanoTime() - started) / 1_000_000);
    }
    return store;
  }

  /** Installs the capacity policy {@link #beginPut} applies after the reserve check. */
  public void setSpaceGuard(SpaceGuard guard) {
    this.spaceGuard = guard == null ? SpaceGuard.NONE : guard;
  }

  /** Installs what is told of every read and removal (access times for eviction). */
  public void setAccessRecorder(AccessRecorder recorder) {
    this.accessRecorder = recorder == null ? AccessRecorder.NONE : recorder;
  }

  SpaceGuard spaceGuard() {
    return spaceGuard;
  }

  public List<Mountpath> mountpaths() {
    return mountpaths;
  }

  String nodeId() {
    return nodeId;
  }

  Logger log() {
    return log;
  }

  /** Where {@code name} of {@code bucket} lives on this target. */
  public ObjectLocation locate(BucketProps bucket, String name) {
    long digest = PlacementKey.digest(bucket.bucket(), name);
    Mountpath mp = hrw.pick(digest);
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
    ObjectLocation loc = locate(bucket, name);
    return loc.mountpath().meta().get(loc.key());
  }

  /** Opens the object for reading, or returns null when absent. */
  public StoredObject open(BucketProps bucket, String name) throws IOException {
    ObjectLocation loc = locate(bucket, name);
    Lock read = locks.forDigest(loc.digest()).readLock();
    read.lock();
    try {
      ObjectMeta meta = loc.mountpath().meta().get(loc.key());
      if (meta == null) {
        return null;
      }
      try {
        StoredObject obj = new StoredObject(meta, FileChannel.open(loc.file(), StandardOpenOption.READ));
        accessRecorder.accessed(loc);
        return obj;
      } catch (NoSuchFileException e) {
        log.error("node={} bucket={} object={}: metadata present but file {} is missing", nodeId,
            bucket.bucket(), name, loc.file());
        throw new InternalErrorException("object '" + name + "' has metadata but no content on " + nodeId, e);
      }
    } finally {
      read.unlock();
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
    FileChannel ch = FileChannel.open(work, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
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
    commit(intent, loc, null);
  }

  /**
   * The commit protocol, when {@code condition} (null: always) accepts the copy this target holds under the
   * object's write lock. A refused commit removes the work file and changes nothing.
   *
   * @return whether the work file was committed
   */
  boolean commit(CommitIntent intent, ObjectLocation loc, CommitCondition condition) throws IOException {
    Mountpath mp = loc.mountpath();
    mp.meta().putIntent(intent);
    Path work = mp.root().resolve(intent.workFile());
    try {
      FileOps.createDirectories(loc.file().getParent());
      Lock write = locks.forDigest(loc.digest()).writeLock();
      write.lock();
      try {
        ObjectMeta old = mp.meta().get(loc.key());
        if (condition != null && !condition.accept(old)) {
          mp.meta().dropIntent(intent.workFile());
          Files.deleteIfExists(work);
          return false;
        }
        FileOps.moveReplacing(work, loc.file());
        mp.meta().publish(intent.key(), intent.meta());
        mp.usage().addObjects(intent.meta().size() - (old == null ? 0 : old.size()));
      } finally {
        write.unlock();
      }
    } catch (IOException | RuntimeException e) {
      if (Files.exists(work)) { // rename did not happen: the intent must not complete it later
        mp.meta().dropIntent(intent.workFile());
      }
      throw e;
    }
    directorySync.sync(loc.file().getParent());
    mp.meta().dropIntent(intent.workFile());
    commitListener.committed(loc, intent.meta());
    return true;
  }

  /** Decides, under the object's write lock, whether a commit may replace the copy this target holds. */
  @FunctionalInterface
  public interface CommitCondition {
    /** @param current the object's metadata now, or null when there is none */
    boolean accept(ObjectMeta current) throws IOException;
  }

  /** Told of every committed object, after its commit is durable (disk executor). Must not block for long. */
  @FunctionalInterface
  public interface CommitListener {
    CommitListener NONE = (loc, meta) -> { };

    void committed(ObjectLocation loc, ObjectMeta meta);
  }

  /** Installs what is told of every commit (the rebalancer: a write this target does not own is handed on). */
  public void setCommitListener(CommitListener listener) {
    this.commitListener = listener == null ? CommitListener.NONE : listener;
  }

  NameLocks locks() {
    return locks;
  }

  AccessRecorder accessRecorder() {
    return accessRecorder;
  }

  /** Replaces how directories are synced after a commit's rename (tests check the order of the steps). */
  void directorySync(DirectorySync sync) {
    this.directorySync = sync;
  }

  /** Deletes the object; false when it did not exist. Disk executor only. */
  public boolean delete(BucketProps bucket, String name) throws IOException {
    ObjectLocation loc = locate(bucket, name);
    Lock write = locks.forDigest(loc.digest()).writeLock();
    write.lock();
    try {
      ObjectMeta meta = loc.mountpath().meta().get(loc.key());
      if (meta == null) {
        return false;
      }
      remove(loc, meta);
      return true;
    } finally {
      write.unlock();
    }
  }

  /**
   * Evicts a cached copy the caller picked from a metadata scan, unless it changed since: deleted only when its
   * mtime is still {@code mtime} (not overwritten) and {@code idle} accepts its current access time (not read
   * since). Takes the object's write lock; a reader that already opened the file keeps reading it (unlink leaves
   * open descriptors valid). Background threads only.
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
      remove(loc, meta);
      return meta.size();
    } finally {
      write.unlock();
    }
  }

  /** Drops an object's metadata, access time and file. Caller holds the write lock. */
  void remove(ObjectLocation loc, ObjectMeta meta) throws IOException {
    loc.mountpath().meta().delete(loc.key()); // metadata first: a crash now leaves an unreferenced file, not a dangling record
    loc.mountpath().usage().addObjects(-meta.size());
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
    TreeMap<String, ObjectEntry> items = new TreeMap<>(NameOrder.INSTANCE); // null value: a common prefix
    for (Mountpath mp : mountpaths) {
      for (MetaStore.ListedKey k : mp.meta().list(bp + prefix, startAfter == null ? null : bp + startAfter,
          delimiter, limit)) {
        String name = k.key().substring(bp.length());
        ObjectMeta m = k.meta();
        items.put(name, m == null ? null : new ObjectEntry(name, m.size(), new Checksum(m.checksumType(),
            m.checksum()), m.effectiveEtag(), m.mtime()));
      }
    }
    List<ObjectEntry> entries = new ArrayList<>();
    List<String> prefixes = new ArrayList<>();
    int n = 0;
    for (var e : items.entrySet()) {
      if (n++ == limit) {
        break;
      }
      if (e.getValue() == null) {
        prefixes.add(e.getKey());
      } else {
        entries.add(e.getValue());
      }
    }
    return new ListPage(entries, prefixes, null);
  }

  /** Removes every object of a bucket incarnation: metadata at once, files via the trash directory. */
  public void destroyBucket(BucketProps bucket) throws IOException {
    for (Mountpath mp : mountpaths) {
      long bytes = mp.meta().sizeOfPrefix(bucketPrefix(bucket));
      mp.meta().deletePrefix(bucketPrefix(bucket));
      mp.usage().addObjects(-bytes);
      Path dir = bucketDir(mp, bucket);
      if (Files.exists(dir)) {
        Path trash = mp.trashDir().resolve(bucket.bucket().name() + "." + bucket.id() + "." + System.nanoTime());
        FileOps.moveReplacing(dir, trash);
        FileOps.deleteTree(trash);
      }
    }
    log.info("node={} bucket={} destroyed local data of bucket id {}", nodeId, bucket.bucket(), bucket.id());
  }

  /** Finishes interrupted commits, then removes work files and trash a dead process left behind. */
  private void recover(Mountpath mp) throws IOException {
    int finished = 0;
    for (CommitIntent intent : mp.meta().intents()) {
      Path work = mp.root().resolve(intent.workFile());
      Path file = mp.root().resolve(intent.objectFile());
      if (Files.exists(work)) {
        FileOps.createDirectories(file.getParent());
        FileOps.moveReplacing(work, file);
      }
      if (Files.isDirectory(file.getParent())) {
        FileOps.syncDirectory(file.getParent()); // the rename may be ours, or one a power loss could still undo
      }
      mp.meta().completeIntent(intent);
      finished++;
    }
    int removed = 0;
    try (Stream<Path> work = Files.list(mp.workDir())) {
      for (Path p : (Iterable<Path>) work::iterator) {
        Files.deleteIfExists(p);
        removed++;
      }
    }
    try (Stream<Path> trash = Files.list(mp.trashDir())) {
      for (Path p : (Iterable<Path>) trash::iterator) {
        FileOps.deleteTree(p);
      }
    }
    if (finished > 0 || removed > 0) {
      log.info("node={} mountpath={} recovered: finished {} interrupted commits, removed {} stale work files",
          nodeId, mp, finished, removed);
    }
  }



  @Override
  public void close() throws IOException {
    IOException first = null;
    for (Mountpath mp : mountpaths) {
      try {
        mp.close();
      } catch (IOException e) {
        first = first == null ? e : first;
      }
    }
    if (first != null) {
      throw first;
    }
  }
}
