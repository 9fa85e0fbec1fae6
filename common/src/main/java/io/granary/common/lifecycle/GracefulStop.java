package io.granary.common.lifecycle;

import java.time.Duration;

/** A node that can stop without cutting off the requests it is serving (SIGTERM; see docs/config.md). */
public interface GracefulStop extends AutoCloseable {
  /**
   * Stops gracefully and then closes: readiness answers 503 at once, the listener stops accepting, each request in
   * flight may finish within {@code grace}, then everything closes as {@link #close()} does. {@link Duration#ZERO}
   * skips the waiting: the same as {@link #close()}. Blocks the caller.
   */
  void stop(Duration grace) throws Exception;
}
