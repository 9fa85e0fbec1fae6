package io.granary.target.coldget;

import io.granary.backend.RemoteObject;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.target.http.GrowingFile;
import io.granary.target.http.SharedReadChannel;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.storage.ObjectLocation;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * One object's download into a work file, shared by every client that asks for it meanwhile. Clients read the
 * work file as it grows, up to {@link #available()}: the contiguous bytes on disk, less the last byte until the
 * content is verified, so that a corrupt object can be cut short before any client has it whole.
 *
 * <p>The work file's channel stays open while the fetch runs or any client still reads it (it survives the rename
 * that commits the object); the last one out closes it.
 */
public final class Fetch implements GrowingFile {
  private final BucketProps bucket;
  private final ObjectLocation location;
  private final Path workFile;
  private final CompletableFuture<RemoteObject> started = new CompletableFuture<>();
  private final CompletableFuture<ObjectMeta> finished = new CompletableFuture<>();
  private final CompletableFuture<Void> gone = new CompletableFuture<>(); // left the fetches in flight
  private final CopyOnWriteArrayList<Runnable> listeners = new CopyOnWriteArrayList<>();
  private final SharedReadChannel file = new SharedReadChannel();
  private volatile long available;
  private volatile boolean verified;
  private int awaitingFirstBytes; // GETs streaming from this fetch that have not sent their first bytes yet

  Fetch(BucketProps bucket, ObjectLocation location, Path workFile) {
    this.bucket = bucket;
    this.location = location;
    this.workFile = workFile;
  }

  public BucketProps bucket() {
    return bucket;
  }

  public ObjectLocation location() {
    return location;
  }

  Path workFile() {
    return workFile;
  }

  /** Completes with the remote object's attributes once its first answer arrived, or fails. */
  public CompletableFuture<RemoteObject> started() {
    return started;
  }

  /** Completes with the committed metadata, or fails (remote error, bad checksum, no space). */
  @Override
  public CompletableFuture<ObjectMeta> finished() {
    return finished;
  }

  /** Completes once this fetch is no longer one a request can join (after {@link #finished}). */
  CompletableFuture<Void> gone() {
    return gone;
  }

  /** Bytes from offset 0 that may be sent to clients now. */
  @Override
  public long available() {
    return available;
  }

  /** Whether the whole content is on disk and matched the remote's checksum. */
  public boolean verified() {
    return verified;
  }

  /** The work file, open for reading; valid between {@link #acquire} and {@link #release}. */
  @Override
  public FileChannel channel() {
    return file.channel();
  }

  /** Registers a reader; false when the fetch already ended and closed its file (read the committed object). */
  public boolean acquire() {
    return file.acquire();
  }

  /** Readers registered now, not counting the fetch itself (for a fetch still in flight). */
  int readers() {
    return file.readers();
  }

  /** Unregisters a reader (or the fetch itself); the last one closes the work file's channel. */
  @Override
  public void release() {
    file.release();
  }

  /** A GET will stream from this fetch: see {@link #awaitFirstBytes}. Call {@link #firstBytesSent} once for it. */
  synchronized void expectFirstBytes() {
    awaitingFirstBytes++;
  }

  /** A GET that {@linkplain #expectFirstBytes joined} has its response head and first bytes out, or never will. */
  @Override
  public synchronized void firstBytesSent() {
    if (awaitingFirstBytes > 0 && --awaitingFirstBytes == 0) {
      notifyAll();
    }
  }

  /**
   * Waits (at most {@code millis}) until every GET that joined so far has its first bytes out. The fetch calls it
   * after its first piece: the rest of a large object arrives at full speed and keeps the cores busy (remote
   * reads, writes, hashing), while sending the waiting clients their heads takes two event-loop turns (target,
   * then proxy) that would otherwise queue behind it for milliseconds.
   */
  synchronized void awaitFirstBytes(long millis) throws InterruptedIOException {
    long deadline = System.nanoTime() + millis * 1_000_000;
    try {
      for (long left = millis; awaitingFirstBytes > 0 && left > 0;
          left = (deadline - System.nanoTime()) / 1_000_000) {
        wait(left);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while the first bytes went out");
    }
  }

  /** Calls {@code listener} whenever more bytes become available or the fetch ends (any thread). */
  @Override
  public void listen(Runnable listener) {
    listeners.add(listener);
  }

  @Override
  public void unlisten(Runnable listener) {
    listeners.remove(listener);
  }

  void opened(FileChannel ch, RemoteObject object) {
    file.open(ch);
    started.complete(object);
  }

  void advance(long bytes) {
    if (bytes > available) {
      available = bytes;
      notifyListeners();
    }
  }

  /** The whole content is on disk and matched the remote's checksum: clients may have all of it. */
  void verifiedContent(long size) {
    verified = true;
    advance(size);
  }

  void succeed(ObjectMeta meta) {
    verified = true;
    available = meta.size();
    finished.complete(meta);
    notifyListeners();
  }

  void fail(Throwable t) {
    started.completeExceptionally(t);
    finished.completeExceptionally(t);
    notifyListeners();
  }

  private void notifyListeners() {
    for (Runnable r : listeners) {
      r.run();
    }
  }
}
