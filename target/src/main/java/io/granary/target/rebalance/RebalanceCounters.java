package io.granary.target.rebalance;

import io.granary.common.rebalance.RebalanceProgress;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The counters of one rebalance on one target. Senders, the walker and receivers update them from their own threads;
 * {@link #snapshot} may run at any time. Only the first {@value #MAX_FAILURES} failures are kept.
 */
final class RebalanceCounters {
  static final int MAX_FAILURES = 100;

  final long id;
  final AtomicLong toMove = new AtomicLong();
  final AtomicLong bytesToMove = new AtomicLong();
  final AtomicLong walked = new AtomicLong();
  final AtomicLong sent = new AtomicLong();
  final AtomicLong bytesSent = new AtomicLong();
  final AtomicLong kept = new AtomicLong();
  final AtomicLong received = new AtomicLong();
  final AtomicLong bytesReceived = new AtomicLong();
  final AtomicLong failed = new AtomicLong();
  private final List<RebalanceProgress.Failure> failures = new ArrayList<>(); // guarded by itself
  private final RebalanceStats stats;
  private final Clock clock;
  private final Instant started;
  private volatile boolean walkComplete;
  private volatile String state = RebalanceProgress.RUNNING;
  private volatile Instant finished;

  /** @param stats the target's totals over every rebalance, which failures count into as well */
  RebalanceCounters(long id, RebalanceStats stats, Clock clock) {
    this.id = id;
    this.stats = stats;
    this.clock = clock;
    this.started = clock.instant();
  }

  /** Counters of a rebalance whose walk completed before this process started (nothing to report but the end). */
  static RebalanceCounters completed(long id, RebalanceStats stats, Clock clock) {
    RebalanceCounters c = new RebalanceCounters(id, stats, clock);
    c.walkComplete = true;
    c.end(RebalanceProgress.DONE);
    return c;
  }

  void failure(String object, String error) {
    failed.incrementAndGet();
    stats.failed();
    synchronized (failures) {
      if (failures.size() < MAX_FAILURES) {
        failures.add(new RebalanceProgress.Failure(object, error));
      }
    }
  }

  void walkComplete() {
    walkComplete = true;
  }

  synchronized void end(String end) {
    if (RebalanceProgress.RUNNING.equals(state)) {
      state = end;
      finished = clock.instant();
    }
  }

  String state() {
    return state;
  }

  RebalanceProgress snapshot(String target, long pendingHandoffs, long heldBytes, boolean holdsObjects,
      long roomBytes, long bandwidthCap) {
    String st = state;
    List<RebalanceProgress.Failure> f;
    synchronized (failures) {
      f = List.copyOf(failures);
    }
    Instant end = finished;
    double seconds = Math.max(0.001, Duration.between(started, end != null ? end : clock.instant()).toMillis() / 1e3);
    double rate = bytesSent.get() / seconds;
    long left = Math.max(0, bytesToMove.get() - bytesSent.get());
    Long eta = !RebalanceProgress.RUNNING.equals(st) ? Long.valueOf(0) : rate > 0 ? Long.valueOf((long) (left / rate))
        : null;
    // A done walk with a handoff still pending is not done yet: the primary waits for both.
    String reported = RebalanceProgress.DONE.equals(st) && pendingHandoffs > 0 ? RebalanceProgress.RUNNING : st;
    return new RebalanceProgress(target, id, reported, toMove.get(), bytesToMove.get(), walked.get(), walkComplete,
        sent.get(), bytesSent.get(), kept.get(), received.get(), bytesReceived.get(), failed.get(), f,
        pendingHandoffs, heldBytes, holdsObjects, roomBytes, rate, eta, bandwidthCap, started, end);
  }
}
