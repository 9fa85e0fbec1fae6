package io.granary.target.resilver;

import io.granary.common.mountpath.MountpathsReport;
import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

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
  private volatile String error;
  private volatile String state = MountpathsReport.Resilver.RUNNING;
  private volatile Instant finished;

  ResilverCounters(long id, String cause, Clock clock) {
    this.id = id;
    this.cause = cause;
    this.clock = clock;
    this.started = clock.instant();
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
