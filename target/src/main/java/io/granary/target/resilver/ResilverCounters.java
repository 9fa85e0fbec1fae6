package io.granary.target.resilver;

import io.granary.common.mountpath.MountpathsReport;
import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/** The progress of one resilver on this target, updated by its walk and moves; read by the API. Thread-safe. */
final class ResilverCounters {
  final long id;
  final String cause;
  final Instant started;
  final AtomicLong toMove = new AtomicLong();
  final AtomicLong bytesToMove = new AtomicLong();
  final AtomicLong moved = new AtomicLong();
  final AtomicLong bytesMoved = new AtomicLong();
  final AtomicLong kept = new AtomicLong();
  final AtomicLong uploadsMoved = new AtomicLong();
  final AtomicLong failed = new AtomicLong();
  private final Clock clock;
  private final LongAdder totalMoved;      // null: no totals to keep (idle reports)
  private final LongAdder totalBytesMoved;
  private volatile String error;
  private volatile String state = MountpathsReport.Resilver.RUNNING;
  private volatile Instant finished;

  ResilverCounters(long id, String cause, Clock clock) {
    this(id, cause, clock, null, null);
  }

  /** @param totalMoved, totalBytesMoved the target's totals over every resilver, which each move counts into too */
  ResilverCounters(long id, String cause, Clock clock, LongAdder totalMoved, LongAdder totalBytesMoved) {
    this.totalMoved = totalMoved;
    this.totalBytesMoved = totalBytesMoved;
    this.id = id;
    this.cause = cause;
    this.clock = clock;
    this.started = clock.instant();
  }

  /** One object moved to its HRW mountpath. */
  void moved(long bytes) {
    moved.incrementAndGet();
    bytesMoved.addAndGet(bytes);
    if (totalMoved != null) {
      totalMoved.increment();
      totalBytesMoved.add(bytes);
    }
  }

  /** One object (or the walk) could not be dealt with; the first failure is kept as the error. */
  void failure(String what, String why) {
    failed.incrementAndGet();
    if (error == null) {
      error = what + ": " + why;
    }
  }

  void end(String endState) {
    state = endState;
    finished = clock.instant();
  }

  String state() {
    return state;
  }

  MountpathsReport.Resilver snapshot() {
    return new MountpathsReport.Resilver(id, state, cause, toMove.get(), bytesToMove.get(), moved.get(),
        bytesMoved.get(), kept.get(), uploadsMoved.get(), failed.get(), error, started, finished);
  }

  /** What the API shows before any resilver ran since start. */
  static MountpathsReport.Resilver idle(long lastId) {
    return new MountpathsReport.Resilver(lastId, MountpathsReport.Resilver.IDLE, null, 0, 0, 0, 0, 0, 0, 0, null,
        null, null);
  }
}
