package io.granary.target.jobs;

import io.granary.target.coldget.CacheFiller.FillResult;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The counters of one job on one target. Fill completions update it from whatever thread completes the fill;
 * the walker updates the walk counters; {@link #snapshot} may run any time from any thread. Only the first
 * {@value #MAX_FAILURES} failures are kept (name and message), the rest only counted, so a job over a broken
 * bucket of millions of names stays small.
 */
final class JobProgress {
  static final int MAX_FAILURES = 1000;

  private final PrefetchSpec spec;
  private final String target;
  private final boolean explicit;
  private final Clock clock;
  private final Instant started;

  private final AtomicLong walked = new AtomicLong();
  private final AtomicLong owned = new AtomicLong();
  private final AtomicLong ownedBytes = new AtomicLong();
  private final AtomicLong fetched = new AtomicLong();
  private final AtomicLong cached = new AtomicLong();
  private final AtomicLong notFound = new AtomicLong();
  private final AtomicLong errors = new AtomicLong();
  private final AtomicLong bytesFetched = new AtomicLong();
  private final AtomicLong failuresDropped = new AtomicLong();
  private final List<JobSnapshot.Failure> failures = new ArrayList<>(); // guarded by itself
  private final long knownTotal;

  private volatile boolean walkComplete;
  private volatile boolean sizesKnown; // every owned name came with a listed size
  private volatile JobState state = JobState.RUNNING;
  private volatile String error;
  private volatile Instant finished;

  JobProgress(PrefetchSpec spec, String target, Selection selection, Clock clock) {
    this.spec = spec;
    this.target = target;
    this.explicit = selection.explicit();
    this.knownTotal = selection.knownTotal();
    this.clock = clock;
    this.started = clock.instant();
    this.sizesKnown = true;
  }

  void walked() {
    walked.incrementAndGet();
  }

  void owned(long size) {
    owned.incrementAndGet();
    if (size >= 0) {
      ownedBytes.addAndGet(size);
    } else {
      sizesKnown = false;
    }
  }

  void walkComplete() {
    walkComplete = true;
  }

  void settled(String name, FillResult r) {
    switch (r.outcome()) {
      case FETCHED -> {
        fetched.incrementAndGet();
        bytesFetched.addAndGet(r.bytes());
      }
      case ALREADY_CACHED -> cached.incrementAndGet();
      case NOT_FOUND -> {
        notFound.incrementAndGet();
        if (explicit) {
          recordFailure(name, "not found in " + spec.bucket());
        }
      }
    }
  }

  void failed(String name, String message) {
    errors.incrementAndGet();
    recordFailure(name, message);
  }

  private void recordFailure(String name, String message) {
    synchronized (failures) {
      if (failures.size() < MAX_FAILURES) {
        failures.add(new JobSnapshot.Failure(name, message));
        return;
      }
    }
    failuresDropped.incrementAndGet();
  }

  /** Ends the job; the first end wins (an abort racing the walk's own end). */
  synchronized boolean finish(JobState end, String why) {
    if (state.finished()) {
      return false;
    }
    error = why;
    finished = clock.instant();
    state = end;
    return true;
  }

  JobState state() {
    return state;
  }

  long failedCount() {
    return errors.get() + (explicit ? notFound.get() : 0);
  }

  /** This job's counters as one job in its current state (for metrics; cheaper than a snapshot). */
  JobTotals totals() {
    JobState st = state; // first, as in snapshot()
    return new JobTotals(st == JobState.RUNNING ? 1 : 0, st == JobState.SUCCEEDED ? 1 : 0,
        st == JobState.FAILED ? 1 : 0, st == JobState.ABORTED ? 1 : 0, owned.get(), fetched.get(), cached.get(),
        notFound.get(), errors.get(), bytesFetched.get());
  }

  JobSnapshot snapshot() {
    JobState st = state; // first: a finished state's counters are final once read after it
    List<JobSnapshot.Failure> f;
    synchronized (failures) {
      f = List.copyOf(failures);
    }
    boolean complete = walkComplete;
    Long total = knownTotal >= 0 ? Long.valueOf(knownTotal) : complete ? Long.valueOf(walked.get()) : null;
    Long bytes = complete && sizesKnown && !explicit ? Long.valueOf(ownedBytes.get()) : null;
    long done = fetched.get() + cached.get() + notFound.get() + errors.get();
    return new JobSnapshot(spec.id(), TargetJobs.PREFETCH, spec.bucket(), target, st, error, spec.selectionKind(),
        spec.prefix(), spec.template(), spec.latest(), total, walked.get(), complete, owned.get(), bytes, done,
        fetched.get(), cached.get(), notFound.get(), failedCount(), bytesFetched.get(), f,
        failuresDropped.get(), spec.targets(), started, finished);
  }
}
