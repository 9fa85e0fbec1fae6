package io.granary.target.rebalance;

import java.util.concurrent.atomic.LongAdder;

/**
 * What one target moved to and from other targets since it started, over every rebalance, for metrics (AIStore's
 * {@code reb.tx.n}, {@code reb.tx.size}, {@code reb.rx.n}, {@code reb.rx.size}). Counted where each move ends, so
 * the counts only grow: rebalance walks, handoffs and get-from-neighbor pushes alike. An object a receiver did not
 * need (it held the same or a newer version) is neither sent nor received.
 */
public final class RebalanceStats {
  private final LongAdder sent = new LongAdder();
  private final LongAdder bytesSent = new LongAdder();
  private final LongAdder received = new LongAdder();
  private final LongAdder bytesReceived = new LongAdder();
  private final LongAdder failures = new LongAdder();
  private final LongAdder neighborReads = new LongAdder();

  void sent(long bytes) {
    sent.increment();
    bytesSent.add(bytes);
  }

  void received(long bytes) {
    received.increment();
    bytesReceived.add(bytes);
  }

  void neighborRead() {
    neighborReads.increment();
  }

  void failed() {
    failures.increment();
  }

  /** Copies this target sent that their receivers stored. */
  public long sent() {
    return sent.sum();
  }

  public long bytesSent() {
    return bytesSent.sum();
  }

  /** Copies from other targets this target stored. */
  public long received() {
    return received.sum();
  }

  public long bytesReceived() {
    return bytesReceived.sum();
  }

  /**
   * Reads (GET, HEAD) of objects not yet moved here that another target answered, relayed through this one
   * (get-from-neighbor).
   */
  public long neighborReads() {
    return neighborReads.sum();
  }

  /**
   * Objects this target could not move to their owners and left here (a rebalance walk's failures, handoffs that
   * failed for good); a walk that failed outright counts one.
   */
  public long failures() {
    return failures.sum();
  }
}
