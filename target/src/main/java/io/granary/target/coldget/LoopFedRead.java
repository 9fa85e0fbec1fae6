package io.granary.target.coldget;

import io.granary.backend.BackendException;
import io.granary.backend.LengthCheckedRead;
import io.granary.backend.RemoteObject;
import io.granary.common.http.client.UpstreamPool;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;

/**
 * A remote read whose body an event loop receives ({@link LoopGet}) and a cold thread consumes. The loop queues the
 * body's buffers as they arrive (no copy) and stops reading from the connection while more than {@link #HIGH} bytes
 * wait, so a slow disk holds back the remote rather than filling memory; the reader copies them into its own buffer.
 * A connection that fails, or stays silent for the read timeout, ends the read with
 * {@link BackendException.Kind#TRUNCATED} or {@link BackendException.Kind#UNAVAILABLE}, which the fetch resumes
 * from, as it does a blocking read.
 */
final class LoopFedRead extends LengthCheckedRead {
  /** Queued bytes above which the loop stops reading from the remote. */
  static final int HIGH = 2 << 20;
  /** Queued bytes below which it reads again. */
  static final int LOW = 512 << 10;

  private final Channel channel;
  private final UpstreamPool pool;
  private final long timeoutNanos;
  private final boolean keepAlive;
  private final ArrayDeque<ByteBuf> queue = new ArrayDeque<>();
  private long queued;
  private boolean ended; // the last body chunk arrived
  private Throwable failure; // the connection failed; the pool took it back
  private boolean closed;
  private volatile boolean paused; // the loop stopped reading (set on the loop)
  private boolean returned; // the connection went back to the pool (loop only)
  private boolean nonBlocking; // readQueued is reading
  private boolean waiting; // the reader waits for bytes: only then is a wake-up worth its cost
  private long mostQueued; // the high-water mark of queued bytes, for tests
  private volatile int pauses; // times the loop stopped reading (written on the loop only), for tests

  LoopFedRead(RemoteObject object, long offset, long length, String what, Channel channel, UpstreamPool pool,
      Duration timeout, boolean keepAlive) {
    super(object, offset, length, what);
    this.channel = channel;
    this.pool = pool;
    this.timeoutNanos = timeout.toNanos();
    this.keepAlive = keepAlive;
  }

  // ---- the event loop's side

  /** A body buffer arrived; this read owns it. Loop only. */
  void offer(ByteBuf buf, boolean last) {
    boolean pause;
    synchronized (this) {
      if (closed || failure != null) {
        buf.release();
        return;
      }
      if (buf.isReadable()) {
        queue.add(buf);
        queued += buf.readableBytes();
        mostQueued = Math.max(mostQueued, queued);
      } else {
        buf.release();
      }
      ended |= last;
      pause = !ended && queued > HIGH && !paused;
      if (waiting) {
        notifyAll();
      }
    }
    if (pause) {
      pauses++;
      paused = true;
      channel.config().setAutoRead(false);
    }
  }

  /** The most bytes that were queued at once. */
  synchronized long mostQueued() {
    return mostQueued;
  }

  /** How many times the loop stopped reading because the reader fell behind. */
  int pauses() {
    return pauses;
  }

  /** The connection failed or closed; the pool has taken it back. Loop only. */
  void fail(Throwable cause) {
    returned = true;
    synchronized (this) {
      if (failure == null) {
        failure = cause;
      }
      notifyAll();
    }
  }

  private void resume() {
    if (paused && !returned) {
      paused = false;
      channel.config().setAutoRead(true);
    }
  }

  // ---- the reader's side

  /**
   * Reads what has arrived already, without waiting: 0 when nothing has. The fetch calls it on the loop to write
   * the first bytes there, so the clients' first bytes do not wait for a cold thread.
   */
  int readQueued(ByteBuffer dst) throws IOException {
    nonBlocking = true;
    try {
      int total = 0;
      while (dst.hasRemaining()) {
        int n = readClamped(dst);
        if (n <= 0) {
          break;
        }
        total += n;
      }
      return total;
    } finally {
      nonBlocking = false;
    }
  }

  @Override
  protected int readSource(ByteBuffer dst) throws IOException {
    ByteBuf head;
    synchronized (this) {
      if (nonBlocking && queue.isEmpty()) {
        return 0; // the blocking reads report an end or a failure
      }
      long deadline = System.nanoTime() + timeoutNanos;
      while (queue.isEmpty() && !ended && failure == null) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new BackendException(BackendException.Kind.UNAVAILABLE, 0, what() + ": body stalled after "
              + received() + " of " + length() + " bytes (no bytes for " + timeoutNanos / 1_000_000 + " ms)");
        }
        waiting = true;
        try {
          wait(left / 1_000_000, (int) (left % 1_000_000));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("interrupted while reading " + what());
        } finally {
          waiting = false;
        }
      }
      head = queue.peek();
      if (head == null) {
        if (failure != null) {
          throw new BackendException(BackendException.Kind.TRUNCATED, 0, what() + ": body failed after "
              + received() + " of " + length() + " bytes: " + failure, failure);
        }
        return -1; // ended: short of the promise, the caller reports it
      }
    }
    // Only this thread takes from the queue, so the buffer at its head stays put while it is copied unlocked.
    int n = Math.min(dst.remaining(), head.readableBytes());
    int limit = dst.limit();
    dst.limit(dst.position() + n);
    head.readBytes(dst);
    dst.limit(limit);
    boolean resume;
    synchronized (this) {
      if (!head.isReadable()) {
        queue.poll();
        head.release();
      }
      queued -= n;
      resume = paused && queued < LOW;
    }
    if (resume) {
      channel.eventLoop().execute(this::resume);
    }
    return n;
  }

  @Override
  protected void closeSource(boolean complete) {
    synchronized (this) {
      closed = true;
      queue.forEach(ByteBuf::release);
      queue.clear();
      queued = 0;
    }
    channel.eventLoop().execute(() -> {
      if (!returned) { // a failed connection went back to the pool already
        returned = true;
        boolean whole;
        synchronized (this) {
          whole = complete && ended;
        }
        pool.release(channel, whole && keepAlive); // else closed: draining the rest costs more
      }
    });
  }
}
