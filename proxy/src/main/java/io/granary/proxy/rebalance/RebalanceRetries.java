package io.granary.proxy.rebalance;

import io.granary.clustermap.Rebalance;
import io.granary.common.exec.BoundedExecutor;
import io.granary.proxy.membership.ClusterAuthority;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The primary retrying a failed rebalance by itself. When every target has walked everything and some objects could
 * not move, it records the failure in the map with the time of the next attempt ({@link RetryPolicy}: exponential
 * backoff, bounded); at that time it starts the next rebalance, one attempt more, under the newest map. The schedule
 * lives in the map, so every proxy shows it and a restarted primary keeps it. An abort, a newer change or a
 * rebalance started by hand ends the chain: the retry finds its rebalance no longer running and does nothing.
 *
 * <p>Threads: called by the coordinator (membership scheduler, control client threads); map changes run on the
 * control pool, retries are timed on the membership scheduler.
 */
final class RebalanceRetries {
  private static final Logger log = LoggerFactory.getLogger(RebalanceRetries.class);

  private final String nodeId;
  private final ClusterAuthority authority;
  private final RetryPolicy policy;
  private final ScheduledExecutorService scheduler;
  private final BoundedExecutor control;
  private final Clock clock;
  private long recorded;  // the rebalance whose failure was recorded by this process; guarded by this
  private long scheduled; // the rebalance whose retry is timed; guarded by this

  RebalanceRetries(String nodeId, ClusterAuthority authority, RetryPolicy policy, ScheduledExecutorService scheduler,
      BoundedExecutor control, Clock clock) {
    this.nodeId = nodeId;
    this.authority = authority;
    this.policy = policy;
    this.scheduler = scheduler;
    this.control = control;
    this.clock = clock;
  }

  /** Rebalance {@code r} failed as {@code view} shows: records it, with its retry unless attempts are used up. */
  synchronized void failed(Rebalance r, RebalanceView view) {
    if (r.nextAttempt() != null || recorded == r.id()) {
      return; // recorded already (also by a previous run of this primary)
    }
    recorded = r.id();
    String error = r.jobId() + ": " + view.failureSummary();
    Instant next = null;
    if (policy.mayRetry(r.attempt())) {
      Duration delay = policy.delayAfter(r.attempt());
      next = clock.instant().plus(delay);
      log.warn("node={} job={} rebalance attempt {} of {} failed, retrying in {} s: {}", nodeId, r.jobId(),
          r.attempt(), policy.attempts(), delay.toSeconds(), error);
    } else {
      log.error("node={} job={} rebalance attempt {} of {} failed, no more automatic retries (granary rebalance "
          + "start tries again): {}", nodeId, r.jobId(), r.attempt(), policy.attempts(), error);
    }
    Instant at = next;
    control.execute(() -> {
      try {
        authority.rebalanceFailed(r.id(), error, at);
      } catch (RuntimeException e) {
        log.warn("node={} job={} recording the failed rebalance failed: {}", nodeId, r.jobId(), e.toString());
        forget(r.id());
      }
    });
  }

  /** Times the retry the map schedules for {@code r}, once (also a schedule a previous primary run recorded). */
  synchronized void follow(Rebalance r) {
    if (r == null || !r.running() || r.nextAttempt() == null || scheduled == r.id()) {
      return;
    }
    scheduled = r.id();
    long delay = Math.max(0, Duration.between(clock.instant(), r.nextAttempt()).toMillis());
    scheduler.schedule(() -> control.execute(() -> {
      try {
        authority.retryRebalance(r.id());
      } catch (RuntimeException e) {
        log.warn("node={} job={} retrying the rebalance failed: {}", nodeId, r.jobId(), e.toString());
        forget(r.id());
      }
    }), delay, TimeUnit.MILLISECONDS);
  }

  /** Lets the next round record or time {@code id} again, after a change that did not go through. */
  private synchronized void forget(long id) {
    if (recorded == id) {
      recorded = 0;
    }
    if (scheduled == id) {
      scheduled = 0;
    }
  }
}
