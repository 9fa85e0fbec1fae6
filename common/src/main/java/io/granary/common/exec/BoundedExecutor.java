package io.granary.common.exec;

import io.granary.common.error.ServiceUnavailableException;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A fixed pool for blocking work with a bounded queue. When the queue is full, submissions fail at once with
 * 503 {@code Busy} and a Retry-After, so overload turns into back-pressure on clients rather than memory growth.
 *
 * <p>Event loops hand work here, so handing it must never wait: the queue is lock-free (a
 * {@link LinkedTransferQueue}, bounded by a counter) and every thread is started up front. With an
 * {@code ArrayBlockingQueue}, whose one lock producers share with the pool's takers, an event loop waited 17–23 ms
 * for a taker the scheduler had paused while holding it (JFR, a joining target on two busy cores).
 */
public final class BoundedExecutor implements AutoCloseable {
  private final ThreadPoolExecutor pool;
  private final String name;
  private final int queueLimit;
  private final AtomicInteger queued = new AtomicInteger();

  public BoundedExecutor(String name, int threads, int queueLimit) {
    this(name, threads, queueLimit, new DefaultThreadFactory(name, true));
  }

  /** A pool on threads from {@code factory} (for example {@link Background#threads}). */
  public BoundedExecutor(String name, int threads, int queueLimit, ThreadFactory factory) {
    this.name = name;
    this.queueLimit = queueLimit;
    this.pool = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS, new LinkedTransferQueue<>(), factory);
    pool.prestartAllCoreThreads(); // execute() then never takes the pool's main lock to start one
  }

  /** Runs {@code task} on the pool; the future fails with 503 Busy when the queue is full. */
  public <T> CompletableFuture<T> submit(Callable<T> task) {
    CompletableFuture<T> f = new CompletableFuture<>();
    if (!enqueue(() -> {
      try {
        f.complete(task.call());
      } catch (Throwable t) {
        f.completeExceptionally(t);
      }
    })) {
      f.completeExceptionally(new ServiceUnavailableException(ServiceUnavailableException.BUSY,
          name + " queue is full (" + queued.get() + " waiting); retry shortly", 1));
    }
    return f;
  }

  /** Runs {@code task} on the pool, or on the caller's thread when the queue is full (for cleanup that must happen). */
  public void execute(Runnable task) {
    if (!enqueue(task)) {
      task.run();
    }
  }

  /** Queues {@code task} unless {@code queueLimit} tasks wait already (or the pool is shut down). */
  private boolean enqueue(Runnable task) {
    if (queued.incrementAndGet() > queueLimit) {
      queued.decrementAndGet();
      return false;
    }
    try {
      pool.execute(() -> {
        queued.decrementAndGet();
        task.run();
      });
      return true;
    } catch (RejectedExecutionException e) {
      queued.decrementAndGet();
      return false;
    }
  }

  @Override
  public void close() {
    pool.shutdown();
    try {
      if (!pool.awaitTermination(10, TimeUnit.SECONDS)) {
        pool.shutdownNow();
      }
    } catch (InterruptedException e) {
      pool.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }
}
