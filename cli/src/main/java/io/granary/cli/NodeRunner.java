package io.granary.cli;

import io.granary.common.membership.ClusterJoiner;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a node process alive until it is told to stop (SIGTERM, Ctrl-C, its parent exiting, or a fatal
 * membership error), then closes the node cleanly so storage is flushed and closed.
 */
final class NodeRunner {
  private static final Logger log = LoggerFactory.getLogger(NodeRunner.class);

  private NodeRunner() {}

  /** Blocks until the process is stopping. {@code parentPid} &gt; 0 ties this process's life to that one. */
  static int run(AutoCloseable node, long parentPid, FatalSignal fatal) throws InterruptedException {
    CountDownLatch closed = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        node.close();
      } catch (Exception e) {
        log.error("clean shutdown failed", e);
      } finally {
        closed.countDown();
      }
    }, "shutdown"));
    if (parentPid > 0) {
      ParentWatch.of(parentPid).start(() -> System.exit(0));
    }
    // A decommissioned node's work is done: it exits cleanly. Any other reason is an error.
    fatal.onFatal(reason -> System.exit(ClusterJoiner.DECOMMISSIONED.equals(reason) ? 0 : 2));
    closed.await();
    return 0;
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
