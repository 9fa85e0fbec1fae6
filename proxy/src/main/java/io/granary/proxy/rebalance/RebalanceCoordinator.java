package io.granary.proxy.rebalance;

import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.Rebalance;
import io.granary.common.control.ControlClient;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.proxy.membership.ClusterAuthority;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The primary's side of rebalancing: while the map's rebalance runs, it asks every target for its progress each
 * {@code interval}; once every target has moved what it holds (and every leaving target holds nothing), it finishes
 * the rebalance, and the targets being decommissioned leave the map. Targets that cannot answer (offline,
 * suspended) hold it open: their objects may be misplaced until they return. A rebalance that cannot finish
 * because some objects could not move is retried by itself ({@link RebalanceRetries}).
 *
 * <p>Threads: rounds run on the membership scheduler and only send requests; the answer is handled on the control
 * client's threads, and the finish (which persists and pushes metadata) on the control pool.
 */
public final class RebalanceCoordinator implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(RebalanceCoordinator.class);
  /** How often the primary asks the targets while a rebalance runs. */
  public static final Duration INTERVAL = Duration.ofSeconds(1);

  private final ClusterMetadataHolder holder;
  private final ClusterAuthority authority;
  private final TargetProgress targets;
  private final ScheduledExecutorService scheduler;
  private final BoundedExecutor control;
  private final Duration interval;
  private final RebalanceRetries retries;
  private final AtomicBoolean asking = new AtomicBoolean();
  private ScheduledFuture<?> task;
  private long lastReported;

  public RebalanceCoordinator(ClusterMetadataHolder holder, ClusterAuthority authority, ControlClient client,
      ScheduledExecutorService scheduler, BoundedExecutor control, Duration interval, RetryPolicy retry) {
    this.holder = holder;
    this.authority = authority;
    this.targets = new TargetProgress(client);
    this.scheduler = scheduler;
    this.control = control;
    this.interval = interval;
    this.retries = new RebalanceRetries(holder.nodeId(), authority, retry, scheduler, control, Clock.systemUTC());
  }

  public void start() {
    task = scheduler.scheduleWithFixedDelay(this::round, interval.toMillis(), interval.toMillis(),
        TimeUnit.MILLISECONDS);
  }

  private void round() {
    ClusterMap map = holder.snapshot().map(ClusterMetadataHolder.Snapshot::map).orElse(null);
    if (map == null || map.rebalance() == null || !map.rebalance().running()) {
      return;
    }
    Rebalance r = map.rebalance();
    retries.follow(r);
    if (!asking.compareAndSet(false, true)) {
      return;
    }
    targets.ask(map).whenComplete((answers, err) -> {
      asking.set(false);
      if (err != null) {
        return;
      }
      RebalanceView view = RebalanceView.of(map, answers);
      if (view.allDone()) {
        control.execute(() -> {
          try {
            authority.finishRebalance(r.id(), view.drained());
          } catch (RuntimeException e) {
            log.warn("node={} job={} finishing the rebalance failed: {}", holder.nodeId(), r.jobId(), e.toString());
          }
        });
      } else if (view.failed()) {
        retries.failed(r, view);
      } else if (System.nanoTime() - lastReported > TimeUnit.SECONDS.toNanos(30)) {
        lastReported = System.nanoTime();
        log.info("node={} job={} rebalance running; waiting for {}", holder.nodeId(), r.jobId(), view.waitingFor());
      }
    });
  }

  @Override
  public void close() {
    if (task != null) {
      task.cancel(false);
    }
  }
}
