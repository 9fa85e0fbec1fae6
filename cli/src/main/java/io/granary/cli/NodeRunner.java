package io.granary.cli;

import io.granary.common.lifecycle.GracefulStop;
import io.granary.common.membership.ClusterJoiner;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/**
 * Keeps a node process alive until it is told to stop, then stops the node so storage is flushed and closed.
 * SIGTERM (Kubernetes, {@code kill}) is a graceful stop ({@link GracefulStop#stop}, bounded by
 * {@code --shutdown-grace}) after which the process exits 0; Ctrl-C and the parent exiting stop it the same way
 * from the shutdown hook. A fatal membership error (another cluster) closes it at once.
 */
final class NodeRunner {
  private static final Logger log = LoggerFactory.getLogger(NodeRunner.class);

  private NodeRunner() {}

  /** Blocks until the node has stopped. {@code parentPid} &gt; 0 ties this process's life to that one. */
  static int run(GracefulStop node, long parentPid, FatalSignal fatal, Duration grace) throws InterruptedException {
    Stopper stopper = new Stopper(node, grace);
    Runtime.getRuntime().addShutdownHook(new Thread(stopper::stop, "shutdown"));
    // The JVM's own SIGTERM handling would exit 143 once the hooks ran; a graceful stop is a clean exit: 0.
    Signal.handle(new Signal("TERM"), sig -> new Thread(stopper::stop, "sigterm").start());
    if (parentPid > 0) {
      ParentWatch.of(parentPid).start(() -> System.exit(0));
    }
    // A decommissioned node's work is done: it exits cleanly. Any other reason is an error.
    fatal.onFatal(reason -> {
      stopper.fatal();
      System.exit(ClusterJoiner.DECOMMISSIONED.equals(reason) ? 0 : 2);
    });
    stopper.await();
    return 0;
  }

  /** Stops the node once, whoever asks first; later callers wait for that stop to end. */
  static final class Stopper {
    private final GracefulStop node;
    private final Duration grace;
    private final AtomicBoolean started = new AtomicBoolean();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile boolean fatal;

    Stopper(GracefulStop node, Duration grace) {
      this.node = node;
      this.grace = grace;
    }

    /** The node must stop at once, without a graceful leave (it belongs to another cluster, or left it). */
    void fatal() {
      fatal = true;
    }

    void stop() {
      if (!started.compareAndSet(false, true)) {
        await();
        return;
      }
      try {
        node.stop(fatal ? Duration.ZERO : grace);
      } catch (Exception e) {
        log.error("clean shutdown failed", e);
      } finally {
        stopped.countDown();
      }
    }

    void await() {
      try {
        stopped.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Lets a node started before its runner report that it must stop. */
  static final class FatalSignal implements Consumer<String> {
    private volatile Consumer<String> target;
    private volatile String pending;

    @Override
    public void accept(String reason) {
      Consumer<String> t = target;
      if (t != null) {
        t.accept(reason);
      } else {
        pending = reason;
      }
    }

    void onFatal(Consumer<String> t) {
      target = t;
      if (pending != null) {
        t.accept(pending);
      }
    }
  }
}
