package io.granary.target.coldget;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Turns pieces written to a work file in any order (parallel ranged reads) into an in-order stream: it tracks which
 * ranges are on disk and lets clients have the contiguous prefix at once (all but the last byte, which waits for
 * verification), while the bytes are hashed in order on another thread, read back from the page cache, so that
 * neither clients nor the remote reads wait for the hashing. Hashing starts once the fetch knows what to verify
 * against ({@link #hashWith}); the bytes written before then wait for it on disk.
 */
final class Sequencer {
  private static final int HASH_BUFFER = 256 << 10;
  private static final ThreadLocal<ByteBuffer> BUFFER = ThreadLocal.withInitial(
      () -> ByteBuffer.allocateDirect(HASH_BUFFER));

  private final FileChannel file;
  private final long size;
  private volatile ContentVerifier verifier;
  private final Fetch fetch;
  private final Executor hashing;
  private final TreeMap<Long, Long> pending = new TreeMap<>(); // start -> end of ranges beyond the prefix
  private final AtomicBoolean hashScheduled = new AtomicBoolean();
  private volatile long contiguous;
  private volatile long hashed; // written by the one scheduled hash loop only
  private volatile IOException hashFailure;

  Sequencer(FileChannel file, long size, Fetch fetch, Executor hashing) {
    this.file = file;
    this.size = size;
    this.fetch = fetch;
    this.hashing = hashing;
  }

  /** Starts hashing, from the first byte, into {@code verifier} (once). */
  void hashWith(ContentVerifier verifier) {
    this.verifier = verifier;
    scheduleHashing();
  }

  /** The verifier hashing feeds, or null before {@link #hashWith}. */
  ContentVerifier verifier() {
    return verifier;
  }

  private void scheduleHashing() {
    if (verifier != null && contiguous > hashed && hashScheduled.compareAndSet(false, true)) {
      hashing.execute(this::hashLoop);
    }
  }

  /** Records that {@code [offset, offset + length)} is on disk; publishes and schedules hashing of what grew. */
  void completed(long offset, long length) {
    long end = offset + length;
    long now;
    synchronized (this) {
      if (offset > contiguous) {
        pending.merge(offset, end, Math::max);
        return;
      }
      long c = Math.max(contiguous, end);
      for (Map.Entry<Long, Long> e = pending.firstEntry(); e != null && e.getKey() <= c; e = pending.firstEntry()) {
        c = Math.max(c, e.getValue());
        pending.pollFirstEntry();
      }
      contiguous = c;
      now = c;
    }
    // The last byte waits for verification: no client gets a corrupt object whole.
    fetch.advance(Math.min(now, size - 1));
    scheduleHashing();
  }

  /** Whether every byte is on disk. */
  boolean complete() {
    return contiguous == size;
  }

  /** Waits until every byte on disk has been hashed (call once all pieces are written and hashing started). */
  void awaitHashed() throws IOException {
    synchronized (this) {
      while (hashed < contiguous && hashFailure == null) {
        try {
          wait(50);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("interrupted while hashing a cold object");
        }
      }
    }
    if (hashFailure != null) {
      throw hashFailure;
    }
  }

  /** Hashes up to the contiguous prefix until it stops growing; one loop runs at a time. */
  private void hashLoop() {
    try {
      while (true) {
        long target = contiguous;
        if (hashed < target) {
          hash(hashed, target);
          hashed = target;
          continue;
        }
        hashScheduled.set(false);
        // A piece that completed while this loop was finishing found it scheduled and did not start another.
        if (contiguous <= hashed || !hashScheduled.compareAndSet(false, true)) {
          break;
        }
      }
    } catch (IOException | RuntimeException e) {
      hashFailure = e instanceof IOException io ? io : new IOException(e);
      hashScheduled.set(false);
    }
    synchronized (this) {
      notifyAll();
    }
  }

  private void hash(long from, long to) throws IOException {
    ByteBuffer buf = BUFFER.get();
    long pos = from;
    while (pos < to) {
      buf.clear().limit((int) Math.min(buf.capacity(), to - pos));
      int n = file.read(buf, pos);
      if (n <= 0) {
        throw new IOException("work file shorter than the bytes written to it at " + pos);
      }
      buf.flip();
      verifier.update(buf);
      pos += n;
    }
  }
}
