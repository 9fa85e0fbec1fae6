package io.granary.target.ec;

import io.granary.target.http.GrowingFile;
import io.granary.target.http.SharedReadChannel;
import io.granary.target.meta.ObjectMeta;
import java.nio.channels.FileChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The work file of an owner's rebuild of a lost main copy, read by the GETs that asked for the object while it is
 * being written: they stream the object as it is decoded instead of waiting for the whole rebuild. The last byte is
 * held back until every slice read and the object itself matched their checksums; if they do not, the readers cut
 * their clients off (a short body, never a whole wrong object).
 *
 * <p>The rebuild {@linkplain #opened opens} it once it has chosen a version and created the work file, or
 * {@linkplain #notStreamed says} it will not (nothing to rebuild, too few slices, the rebuild failed before a byte
 * was written): readers then wait for the rebuild's result as before. The read channel stays open while the
 * rebuild runs or any reader still streams (it survives the rename that commits the copy); the last one out closes
 * it.
 */
final class RestoringCopy implements GrowingFile {
  private final CompletableFuture<ObjectMeta> started = new CompletableFuture<>();
  private final CompletableFuture<Void> finished = new CompletableFuture<>();
  private final CopyOnWriteArrayList<Runnable> listeners = new CopyOnWriteArrayList<>();
  private final SharedReadChannel file = new SharedReadChannel();
  private volatile long available;
  private volatile long size;

  /**
   * Completes with the version being rebuilt once its work file can be streamed, or with null when readers must
   * wait for the rebuild's result instead.
   */
  CompletableFuture<ObjectMeta> started() {
    return started;
  }

  @Override
  public long available() {
    return available;
  }

  @Override
  public FileChannel channel() {
    return file.channel();
  }

  @Override
  public CompletableFuture<Void> finished() {
    return finished;
  }

  @Override
  public void listen(Runnable listener) {
    listeners.add(listener);
  }

  @Override
  public void unlisten(Runnable listener) {
    listeners.remove(listener);
  }

  /** Registers a reader; false before the rebuild opened its file, or once it ended and its readers left. */
  boolean acquire() {
    return file.channel() != null && file.acquire();
  }

  @Override
  public void release() {
    file.release();
  }

  /** The rebuild writes {@code meta}'s version into the file {@code read} reads. */
  void opened(FileChannel read, ObjectMeta meta) {
    this.size = meta.size();
    file.open(read);
    started.complete(meta);
  }

  /** Readers wait for the rebuild's result: nothing is streamed. */
  void notStreamed() {
    started.complete(null);
  }

  /** {@code written} bytes are in the file; all but the last byte of the object may go out. */
  void written(long written) {
    if (finished.isDone()) {
      return;
    }
    long sendable = Math.min(written, size - 1);
    if (sendable > available) {
      available = sendable;
      notifyListeners();
    }
  }

  /** Every checksum matched and the copy is committed: readers may send the whole object. */
  void verified() {
    if (finished.isCompletedExceptionally()) {
      return; // this attempt failed: its readers were cut off, and a retry does not write here
    }
    available = size;
    finished.complete(null);
    notifyListeners();
  }

  /** The rebuild failed: readers still streaming cut their clients off. */
  void fail(Throwable t) {
    started.complete(null);
    finished.completeExceptionally(t);
    notifyListeners();
  }

  private void notifyListeners() {
    for (Runnable r : listeners) {
      r.run();
    }
  }
}
