package io.granary.target.storage;

import io.granary.common.http.HttpExchange;
import io.netty.buffer.ByteBuf;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Writes a request body into a {@link BodySink} (an object's {@link PutOperation}) on a disk thread instead of the
 * event loop. A write to the page cache is usually quick, but under heavy writing the kernel throttles the writer
 * (dirty-page balancing) for tens of milliseconds, and on an event loop that holds every other request of its
 * connections: a target receiving its share of a rebalance stalled its own reads so (bench/rebalance.sh, profiled with
 * JFR). Chunks are kept (retained, never copied) in order and written by one task at a time; reading the body pauses
 * while more than {@link #PAUSE_AT} bytes wait and resumes below {@link #RESUME_AT}, so memory stays bounded per
 * request.
 *
 * <p>{@link #write} and {@link #end} are called on the event loop; {@link #abort} on any thread.
 */
public final class OffLoopWrites<S extends BodySink> {
  static final long PAUSE_AT = 4L << 20;
  static final long RESUME_AT = 1L << 20;
  /**
   * A disk task is handed this much at least (or what is left at the body's end): waking a disk thread per chunk
   * (tens per MiB) cost a target 60% more CPU per GiB of PUTs than writing on the loop (bench/put.sh, 1 MiB objects).
   */
  static final long BATCH = 256L << 10;

  private final S op;
  private final Executor disk;
  private final HttpExchange ex;
  private final ConcurrentLinkedQueue<ByteBuf> queue = new ConcurrentLinkedQueue<>();
  private final AtomicLong pending = new AtomicLong();
  private final AtomicBoolean scheduled = new AtomicBoolean();
  private final AtomicBoolean completed = new AtomicBoolean();
  private final AtomicBoolean discarded = new AtomicBoolean();
  private final AtomicBoolean resumeAsked = new AtomicBoolean();
  private final CompletableFuture<S> written = new CompletableFuture<>();
  private volatile Throwable failure;
  private volatile boolean ended;
  private volatile boolean aborted;
  private boolean paused; // event loop only

  public OffLoopWrites(S op, Executor disk, HttpExchange ex) {
    this.op = op;
    this.disk = disk;
    this.ex = ex;
  }

  /** Queues {@code bytes} (its readable part) to be written; event loop. */
  public void write(ByteBuf bytes) {
    int n = bytes.readableBytes();
    if (n == 0 || aborted) {
      return;
    }
    queue.add(bytes.retainedSlice());
    long queued = pending.addAndGet(n);
    if (queued > PAUSE_AT && !paused) {
      paused = true;
      ex.readRequestBody(false);
    }
    if (queued >= BATCH) {
      schedule();
    }
  }

  /**
   * The body has ended: completes once everything queued is written (exceptionally with the first write's failure,
   * after which {@link #abort} discards the work file); event loop. The caller commits the operation on its pool.
   */
  public CompletableFuture<S> end() {
    ended = true;
    if (queue.isEmpty() && !scheduled.get()) {
      complete();
    } else {
      schedule(); // what is left below a batch
    }
    return written;
  }

  /** The first write's failure, or null while every write so far succeeded; any thread. */
  public Throwable failure() {
    return failure;
  }

  /** Stops writing: what is queued is dropped and the operation discarded, on a disk thread. Not after a commit. */
  public void abort() {
    aborted = true;
    schedule();
  }

  private void schedule() {
    if (scheduled.compareAndSet(false, true)) {
      disk.execute(this::drain);
    }
  }

  private void drain() {
    for (;;) {
      ByteBuf b;
      while ((b = queue.poll()) != null) {
        int n = b.readableBytes();
        try {
          if (!aborted && failure == null) {
            op.write(b);
          }
        } catch (Throwable t) {
          failure = t;
        } finally {
          b.release();
          pending.addAndGet(-n);
        }
      }
      scheduled.set(false);
      if (queue.isEmpty() || !scheduled.compareAndSet(false, true)) {
        break;
      }
    }
    if (aborted) {
      if (discarded.compareAndSet(false, true)) {
        op.discard();
      }
      if (completed.compareAndSet(false, true)) {
        written.completeExceptionally(new IllegalStateException("aborted"));
      }
      return;
    }
    if (ended && queue.isEmpty() && !scheduled.get()) {
      complete();
    } else if (pending.get() < RESUME_AT && resumeAsked.compareAndSet(false, true)) {
      ex.onLoop(() -> {
        resumeAsked.set(false);
        if (paused && pending.get() < RESUME_AT) {
          paused = false;
          ex.readRequestBody(true);
        }
      });
    }
  }

  private void complete() {
    if (completed.compareAndSet(false, true)) {
      if (failure != null) {
        written.completeExceptionally(failure);
      } else {
        written.complete(op);
      }
    }
  }
}
