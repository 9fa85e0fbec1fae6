package io.granary.common.exec;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.common.error.ServiceUnavailableException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The pool's bound: queued work beyond the limit is refused (submit) or run by the caller (execute), never kept. */
class BoundedExecutorTest {

  @Test
  void submit_beyondTheQueueLimit_failsBusy_andQueuedWorkStillRuns() throws Exception {
    try (BoundedExecutor pool = new BoundedExecutor("test-pool", 1, 3)) {
      CountDownLatch release = new CountDownLatch(1);
      CountDownLatch running = new CountDownLatch(1);
      CompletableFuture<Integer> blocker = pool.submit(() -> {
        running.countDown();
        release.await();
        return 0;
      });
      assertThat(running.await(10, TimeUnit.SECONDS)).isTrue(); // the one thread is busy: what follows queues
      List<CompletableFuture<Integer>> queued = new ArrayList<>();
      for (int i = 1; i <= 3; i++) {
        int n = i;
        queued.add(pool.submit(() -> n));
      }
      CompletableFuture<Integer> refused = pool.submit(() -> 99);

      assertThat(refused).isCompletedExceptionally();
      try {
        refused.get();
      } catch (ExecutionException e) {
        assertThat(e.getCause()).isInstanceOf(ServiceUnavailableException.class)
            .hasMessageContaining("test-pool queue is full");
      }
      release.countDown();
      assertThat(blocker.get(10, TimeUnit.SECONDS)).isZero();
      for (int i = 0; i < 3; i++) {
        assertThat(queued.get(i).get(10, TimeUnit.SECONDS)).isEqualTo(i + 1);
      }
      assertThat(pool.submit(() -> 7).get(10, TimeUnit.SECONDS)).as("room again once the queue drained").isEqualTo(7);
    }
  }

  @Test
  void execute_whenFull_runsOnTheCallersThread() throws Exception {
    try (BoundedExecutor pool = new BoundedExecutor("test-pool", 1, 1)) {
      CountDownLatch release = new CountDownLatch(1);
      CountDownLatch running = new CountDownLatch(1);
      pool.execute(() -> {
        running.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
      CountDownLatch queuedRan = new CountDownLatch(1);
      pool.execute(queuedRan::countDown); // fills the queue
      AtomicReference<Thread> ranOn = new AtomicReference<>();
      pool.execute(() -> ranOn.set(Thread.currentThread()));

      assertThat(ranOn.get()).isSameAs(Thread.currentThread());
      release.countDown();
      assertThat(queuedRan.await(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void afterClose_executeRunsOnTheCaller_andSubmitFailsBusy() {
    BoundedExecutor pool = new BoundedExecutor("test-pool", 2, 8);
    pool.close();
    AtomicReference<Thread> ranOn = new AtomicReference<>();
    pool.execute(() -> ranOn.set(Thread.currentThread()));
    assertThat(ranOn.get()).isSameAs(Thread.currentThread());
    assertThat(pool.submit(() -> 1)).isCompletedExceptionally();
  }
}
