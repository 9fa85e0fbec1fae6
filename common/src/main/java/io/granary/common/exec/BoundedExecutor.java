package io.granary.common.exec;

import io.granary.common.error.ServiceUnavailableException;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A fixed pool for blocking work with a bounded queue. When the queue is full, submissions fail at once with
 * 503 {@code Busy} and a Retry-After, so overload turns into back-pressure on clients rather than memory growth.
 */
public final class BoundedExecutor implements AutoCloseable {
  private final ThreadPoolExecutor pool;
  private final String name;

  public BoundedExecutor(String name, int threads, int queueLimit) {
    this.name = name;
    this.pool = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS, new ArrayBlockingQueue<>(queueLimit),
        new DefaultThreadFactory(name, true));
  }

  /** Runs {@code task} on the pool; the future fails with 503 Busy when the queue is full. */
  public <T> CompletableFuture<T> submit(Callable<T> task) {
    CompletableFuture<T> f = new CompletableFuture<>();
    try {
      pool.execute(() -> {
        try {
          f.complete(task.call());
        } catch (Throwable t) {
          f.completeExceptionally(t);
        }
      });
    } catch (RejectedExecutionException e) {
      f.completeExceptionally(new ServiceUnavailableException(ServiceUnavailableException.BUSY,
          name + " queue is full (" + pool.getQueue().size() + " waiting); retry shortly", 1));
    }
    return f;
  }

  /** Runs {@code task} on the pool, or on the caller's thread when the queue is full (for cleanup that must happen). */
  public void execute(Runnable task) {
    try {
      pool.execute(task);
    } catch (RejectedExecutionException e) {
      task.run();
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
