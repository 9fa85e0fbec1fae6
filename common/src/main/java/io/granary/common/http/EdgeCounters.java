package io.granary.common.http;

import java.util.concurrent.atomic.LongAdder;

/**
 * What a node's HTTP listener did to protect itself: connections refused at the cap, connections it could not accept
 * and requests cut off by a timeout. Counted here instead of logged one line per connection, which an attack would turn into log spam;
 * exposed as metrics (docs/metrics.md). Thread-safe.
 */
public final class EdgeCounters {
  private final LongAdder refusedClosed = new LongAdder();
  private final LongAdder refusedAnswered = new LongAdder();
  private final LongAdder headTimeouts = new LongAdder();
  private final LongAdder bodyTimeouts = new LongAdder();
  private final LongAdder acceptFailures = new LongAdder();

  /** Connections closed at accept: the cap and its reserve were full. */
  public long refusedClosed() {
    return refusedClosed.sum();
  }

  /** Requests answered 503 on a reserve connection because they were not signed by another node. */
  public long refusedAnswered() {
    return refusedAnswered.sum();
  }

  /** Connections closed because a request head was not complete in time (with 408 when it had begun). */
  public long headTimeouts() {
    return headTimeouts.sum();
  }

  /** Requests aborted because their body brought no bytes for the body timeout. */
  public long bodyTimeouts() {
    return bodyTimeouts.sum();
  }

  /** Failed {@code accept(2)} calls on the listener: above all EMFILE, the node at its open-file limit. */
  public long acceptFailures() {
    return acceptFailures.sum();
  }

  void onAcceptFailure() {
    acceptFailures.increment();
  }

  void onRefusedClosed() {
    refusedClosed.increment();
  }

  void onRefusedAnswered() {
    refusedAnswered.increment();
  }

  void onHeadTimeout() {
    headTimeouts.increment();
  }

  void onBodyTimeout() {
    bodyTimeouts.increment();
  }
}
