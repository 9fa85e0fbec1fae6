package io.granary.proxy.membership;

import io.granary.clustermap.Node;
import io.granary.clustermap.NodeState;
import io.granary.common.api.ApiPaths;
import io.granary.common.control.ControlClient;
import io.granary.common.membership.ClusterMetadataHolder;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The primary's health checks: every {@code interval} it asks each node (other than itself) for
 * {@code GET /v1/health}. A node silent for {@code offlineAfter} is marked offline; an
 * offline node that answers is marked active again. Offline nodes keep their HRW place (see {@link NodeState}); a
 * joining target that stays silent as long leaves the map (it never held an object).
 */
public final class HealthMonitor implements AutoCloseable {
  private final ClusterMetadataHolder holder;
  private final ClusterAuthority authority;
  private final ControlClient client;
  private final ScheduledExecutorService scheduler;
  private final Executor blocking;
  private final Duration interval;
  private final Duration offlineAfter;
  private final Clock clock;
  private final Map<String, Long> lastHeard = new ConcurrentHashMap<>();
  private final Map<String, NodeState> lastState = new ConcurrentHashMap<>();
  private final java.util.Set<String> answered = ConcurrentHashMap.newKeySet(); // since this proxy started
  private ScheduledFuture<?> task;
  private volatile boolean closed;

  /**
   * @param blocking where state changes run (they persist metadata)
   * @param client a client whose timeout is shorter than {@code offlineAfter}
   */
  public HealthMonitor(ClusterMetadataHolder holder, ClusterAuthority authority, ControlClient client,
      ScheduledExecutorService scheduler, Executor blocking, Duration interval, Duration offlineAfter, Clock clock) {
    this.holder = holder;
    this.authority = authority;
    this.client = client;
    this.scheduler = scheduler;
    this.blocking = blocking;
    this.interval = interval;
    this.offlineAfter = offlineAfter;
    this.clock = clock;
  }

  public void start() {
    // A target that has just become active is asked at once, not at the next round: readiness waits on its answer.
    // (The holder keeps its listeners: a closed monitor's, under Lease election one per ended term, does nothing.)
    holder.onChange((old, now) -> now.map().targets().values().stream()
        .filter(n -> !closed && n.state() == NodeState.ACTIVE && !answered.contains(n.id()))
        .forEach(n -> client.get(n.url() + ApiPaths.HEALTH, Map.class)
            .thenRun(() -> answered.add(n.id()))));
    task = scheduler.scheduleWithFixedDelay(this::round, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void round() {
    ClusterMetadataHolder.Snapshot s = holder.snapshot().orElse(null);
    if (s == null) {
      return;
    }
    long now = clock.millis();
    for (Node n : s.map().proxies().values()) {
      check(n, s.map().primary(), now);
    }
    for (Node n : s.map().targets().values()) {
      check(n, s.map().primary(), now);
    }
    lastHeard.keySet().removeIf(id -> s.map().node(id).isEmpty());
    lastState.keySet().removeIf(id -> s.map().node(id).isEmpty());
  }

  private void check(Node n, String primary, long now) {
    if (n.id().equals(primary)) {
      return;
    }
    if (lastState.put(n.id(), n.state()) != n.state() && n.state() == NodeState.ACTIVE) {
      lastHeard.put(n.id(), now); // (re)joined or re-activated: a fresh grace period
    }
    lastHeard.putIfAbsent(n.id(), now);
    client.get(n.url() + ApiPaths.HEALTH, Map.class).whenComplete((ok, err) -> {
      if (err == null) {
        lastHeard.put(n.id(), clock.millis());
        answered.add(n.id());
        if (n.state() == NodeState.OFFLINE) {
          blocking.execute(() -> authority.healthChanged(n.id(), true));
        }
      } else if ((n.state() == NodeState.ACTIVE || n.state() == NodeState.JOINING)
          && clock.millis() - lastHeard.getOrDefault(n.id(), now) >= offlineAfter.toMillis()) {
        blocking.execute(() -> authority.healthChanged(n.id(), false));
      }
    });
  }

  /** Whether node {@code id} has answered a health check since this proxy started. */
  public boolean answeredSinceStart(String id) {
    return answered.contains(id);
  }

  @Override
  public void close() {
    closed = true;
    if (task != null) {
      task.cancel(false);
    }
  }
}
