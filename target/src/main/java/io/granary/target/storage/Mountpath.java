package io.granary.target.storage;

import io.granary.target.meta.MetaStore;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One local filesystem (disk) of a target, and its layout:
 *
 * <pre>
 * MOUNTPATH/
 *   .granary/lock          held while a target uses the mountpath (one process per mountpath)
 *   .granary/node-id       the id of the target that owns it
 *   .granary/meta/         RocksDB: object metadata and commit intents
 *   objects/PROVIDER/BUCKET/BUCKET_ID/XX/SHA256(name)   object content
 *   work/                  work files being written; removed at start
 *   trash/                 destroyed buckets waiting to be deleted
 *   uploads/UPLOAD_ID/     parts of multipart uploads in progress
 * </pre>
 *
 * Object files are named by a hash of the object name, not the name itself: names may be longer than a file name,
 * may contain "a" and "a/b" both, and must never be able to address a path outside the bucket.
 */
public final class Mountpath implements AutoCloseable {
  private final Path root;
  private final Path objectsDir;
  private final FileChannel lockChannel;
  private final FileLock lock;
  private final MetaStore meta;
  private final MountpathUsage usage = new MountpathUsage();
  private final FileStore fileStore; // looked up once: the lookup reads the mount table, a statvfs does not
  private final Object rootKey; // device and inode of the root at open: an unmounted disk shows another one

  private Mountpath(Path root, FileChannel lockChannel, FileLock lock, MetaStore meta, FileStore fileStore,
      Object rootKey) {
    this.root = root;
    this.rootKey = rootKey;
    this.fileStore = fileStore;
    this.objectsDir = root.resolve("objects");
    this.lockChannel = lockChannel;
    this.lock = lock;
    this.meta = meta;
  }

  /** Locks the mountpath for this process and opens its metadata store, creating the directory if needed. */
  public static Mountpath open(Path root) throws IOException {
    return open(root, true);
  }

  /**
   * As {@link #open(Path)}; with {@code create} false a missing directory is an error: a mountpath this target used
   * before that is gone now is a disk that did not come back, and an empty directory created in its place (on
   * whatever file system holds the parent) would silently take its objects' place.
   */
  public static Mountpath open(Path root, boolean create) throws IOException {
    Path abs = root.toAbsolutePath().normalize();
    if (!create && !Files.isDirectory(abs)) {
      throw new java.nio.file.NoSuchFileException(abs.toString(), null, "mountpath directory is missing");
    }
    Path sys = abs.resolve(".granary");
    FileOps.createDirectories(sys);
    FileOps.createDirectories(abs.resolve("objects"));
    FileOps.createDirectories(abs.resolve("work"));
    FileOps.createDirectories(abs.resolve("trash"));
    FileOps.createDirectories(abs.resolve("uploads"));
    FileChannel ch = FileChannel.open(sys.resolve("lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    FileLock lock;
    try {
      lock = ch.tryLock();
    } catch (OverlappingFileLockException e) {
      lock = null;
    }
    if (lock == null) {
      ch.close();
      throw new IOException("mountpath " + abs + " is in use by another target process");
    }
    try {
      FileStore fileStore = Files.getFileStore(abs);
      Object rootKey = Files.readAttributes(abs, java.nio.file.attribute.BasicFileAttributes.class).fileKey();
      return new Mountpath(abs, ch, lock, MetaStore.open(sys.resolve("meta")), fileStore, rootKey);
    } catch (IOException e) {
      lock.release();
      ch.close();
      throw e;
    }
  }

  public Path root() {
    return root;
  }

  /** The path string HRW hashes to place objects on this mountpath. */
  public String id() {
    return root.toString();
  }

  /**
   * The root directory's identity (device and inode on Unix; may be null where the platform has none) when it was
   * opened. A root that now has another one was replaced: renamed away, or its disk unmounted.
   */
  public Object rootKey() {
    return rootKey;
  }

  public MetaStore meta() {
    return meta;
  }

  /** Bytes held by objects and work files, as counted by the object store. */
  public MountpathUsage usage() {
    return usage;
  }

  public Path systemDir() {
    return root.resolve(".granary");
  }

  public Path objectsDir() {
    return objectsDir;
  }

  public Path workDir() {
    return root.resolve("work");
  }

  public Path trashDir() {
    return root.resolve("trash");
  }

  /**
   * Files that failed checksum validation, moved aside ({@code QUARANTINED-NAME.EPOCHMS}): kept for the operator, not
   * counted as objects; created on first use.
   */
  public Path quarantineDir() {
    return root.resolve("quarantine");
  }

  /** Parts of multipart uploads in progress: {@code uploads/UPLOAD_ID/PART.SEQ}. */
  public Path uploadsDir() {
    return root.resolve("uploads");
  }

  /** Size of the mountpath's filesystem in bytes. */
  public long totalSpace() throws IOException {
    return fileStore.getTotalSpace();
  }

  /** Bytes available to this process on the mountpath's filesystem. */
  public long usableSpace() throws IOException {
    return fileStore.getUsableSpace();
  }

  /** Closes the metadata store (waiting for calls in progress) and releases the lock. Idempotent. */
  @Override
  public synchronized void close() throws IOException {
    if (!lockChannel.isOpen()) {
      return;
    }
    meta.close();
    try {
      lock.release();
    } finally {
      lockChannel.close();
    }
  }

  @Override
  public String toString() {
    return root.toString();
  }
}
