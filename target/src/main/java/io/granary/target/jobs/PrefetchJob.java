package io.granary.target.jobs;

import io.granary.backend.BackendException;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.ObjectName;
import io.granary.common.error.ApiException;
import io.granary.target.coldget.CacheFiller;
import io.granary.target.coldget.CacheFiller.FillResult;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One prefetch job on one target. {@link #run} walks the selection on a job thread (blocking: remote listing and
 * waiting for a free slot), keeps the names this target owns and calls {@link CacheFiller#fill} for each with at
 * most {@code concurrency} fills in flight: a semaphore, not a queue, so nothing of the selection piles up in
 * memory. Fill completions, on the filler's threads, only count and release a slot.
 *
 * <p>{@link #abort} ends the job at once (state aborted); the walker notices within {@link #POLL_MS} ms and
 * issues no new fill. Fills already in flight run to completion and still count.
 */
final class PrefetchJob {
  private static final Logger log = LoggerFactory.getLogger(PrefetchJob.class);
  static final long POLL_MS = 100;

  private final String nodeId;
  private final PrefetchSpec spec;
  private final BucketProps bucket;
  private final Selection selection;
  private final Ownership ownership;
  private final CacheFiller filler;
  private final int concurrency;
  private final Semaphore slots;
  private final JobProgress progress;
  private volatile String fatal; // set by a fill that makes going on pointless (out of space)

  PrefetchJob(String nodeId, PrefetchSpec spec, BucketProps bucket, Selection selection, Ownership ownership,
      CacheFiller filler, int concurrency, JobProgress progress) {
    this.nodeId = nodeId;
    this.spec = spec;
    this.bucket = bucket;
    this.selection = selection;
    this.ownership = ownership;
    this.filler = filler;
    this.concurrency = concurrency;
    this.slots = new Semaphore(concurrency);
    this.progress = progress;
  }

  JobProgress progress() {
    return progress;
  }

  String id() {
    return spec.id();
  }

  /** Stops issuing fills and marks the job aborted; false if it had already ended. */
  boolean abort(String why) {
    return progress.finish(JobState.ABORTED, why);
  }

  private boolean stopping() {
    return progress.state().finished() || fatal != null;
  }

  /** Walks the selection and waits for the last fill; runs on a job thread. */
  void run() {
    log.info("node={} job={} prefetch {} {} started (concurrency {}, latest={})", nodeId, spec.id(), spec.bucket(),
        describe(), concurrency, spec.latest());
    JobState end = null;
    String why = null;
    try {
      selection.walk(this::offer);
      if (!stopping()) {
        progress.walkComplete();
      }
    } catch (Ownership.PlacementChangedException e) {
      end = JobState.FAILED;
      why = e.getMessage();
    } catch (BackendException e) {
      end = JobState.FAILED;
      why = "listing " + spec.bucket() + " failed: " + e.getMessage();
    } catch (InterruptedException e) {
      end = JobState.ABORTED;
      why = "the target is shutting down";
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      end = JobState.FAILED;
      why = "walking the selection failed: " + e;
      log.warn("node={} job={} walk failed", nodeId, spec.id(), e);
    }
    if (end == null) {
      awaitInFlight();
      if (fatal != null) {
        end = JobState.FAILED;
        why = fatal;
      } else {
        end = progress.failedCount() > 0 ? JobState.FAILED : JobState.SUCCEEDED;
      }
    }
    progress.finish(end, why);
    JobSnapshot s = progress.snapshot();
    log.info("node={} job={} prefetch {} {} ({}): owned {}, fetched {} ({} bytes), cached {}, not found {}, "
        + "failed {}{}", nodeId, spec.id(), spec.bucket(), s.state().wireName(), describe(), s.owned(), s.fetched(),
        s.bytesFetched(), s.cached(), s.notFound(), s.failed(), s.error() == null ? "" : "; " + s.error());
  }

  /** Takes one walked name; false stops the walk. */
  private boolean offer(String name, long size) throws InterruptedException {
    if (stopping()) {
      return false;
    }
    progress.walked();
    if (!ownership.owns(name)) {
      return true;
    }
    progress.owned(size);
    String problem = ObjectName.problem(name);
    if (problem != null) {
      progress.failed(name, "invalid object name: " + problem);
      return true;
    }
    while (!slots.tryAcquire(POLL_MS, TimeUnit.MILLISECONDS)) {
      if (stopping()) {
        return false;
      }
    }
    if (stopping()) {
      slots.release();
      return false;
    }
    CompletableFuture<FillResult> f;
    try {
      f = filler.fill(bucket, name, spec.latest());
    } catch (RuntimeException e) {
      f = CompletableFuture.failedFuture(e);
    }
    f.whenComplete((r, err) -> {
      try {
        if (err == null) {
          progress.settled(name, r);
        } else {
          fillFailed(name, err);
        }
      } finally {
        slots.release();
      }
    });
    return true;
  }

  private void fillFailed(String name, Throwable err) {
    Throwable t = err;
    while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
      t = t.getCause();
    }
    String msg = t.getMessage() == null ? t.toString() : t.getMessage();
    progress.failed(name, msg);
    if (t instanceof ApiException api && api.status().code() == 507) {
      fatal = "stopped: out of space (" + msg + ")"; // every further fill would fail the same way
    }
  }

  /** Waits until every fill in flight has settled, or the job is aborted. */
  private void awaitInFlight() {
    try {
      while (!slots.tryAcquire(concurrency, POLL_MS, TimeUnit.MILLISECONDS)) {
        if (progress.state().finished()) {
          return;
        }
      }
      slots.release(concurrency);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private String describe() {
    return switch (spec.selectionKind()) {
      case "names" -> spec.names().size() + " names";
      case "prefix" -> "prefix '" + spec.prefix() + "'";
      default -> "template '" + spec.template() + "'";
    };
  }
}
