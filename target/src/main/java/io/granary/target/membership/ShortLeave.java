package io.granary.target.membership;

import io.granary.clustermap.Node;
import io.granary.clustermap.NodeState;
import io.granary.common.api.ApiPaths;
import io.granary.common.control.ControlClient;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.membership.MetadataFiles;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A target's short absence for a restart (SIGTERM, as in a Kubernetes rolling restart). Leaving, it asks the primary
 * to suspend it, i.e. maintenance without rebalance ({@code PUT /v1/cluster/nodes/ID
 * {"state":"maintenance","rebalance":false}}, as {@code granary cluster set-state ID maintenance --no-rebalance}):
 * it keeps its HRW place, no object moves, requests for its objects answer 503 with Retry-After. It records on its
 * mountpaths that it left so. Started again, it finds the record and, once it holds a map from the primary that
 * shows it suspended, asks to be active again. A suspension an operator asked for leaves no record, so it stays
 * until the operator ends it.
 */
public final class ShortLeave implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ShortLeave.class);
  static final String RECORD = "left-for-restart";
  private static final long CHECK_MS = 500;

  private final String id;
  private final ClusterMetadataHolder holder;
  private final ControlClient client;
  private final String configuredPrimary; // --primary: used while the map names no primary URL
  private final Supplier<List<Path>> systemDirs;
  private final ScheduledExecutorService scheduler;
  private final AtomicBoolean returning = new AtomicBoolean(); // a request to be active is in flight
  private volatile ScheduledFuture<?> watch; // checks whether to return, until it has
  private volatile boolean closed;
  private int failures;

  /**
   * @param systemDirs the system directories of the readable mountpaths, where the record is kept
   * @param scheduler checks, after a restart, whether to ask to be active (and asks again after a failure)
   */
  public ShortLeave(String id, ClusterMetadataHolder holder, ControlClient client, String configuredPrimary,
      Supplier<List<Path>> systemDirs, ScheduledExecutorService scheduler) {
    this.id = id;
    this.holder = holder;
    this.client = client;
    this.configuredPrimary = configuredPrimary;
    this.systemDirs = systemDirs;
    this.scheduler = scheduler;
  }

  /**
   * Records the leave, then asks the primary to suspend this target, waiting at most {@code timeout}. A failure is
   * logged, not thrown: the node stops anyway, and the primary's health checks mark it offline (also in place).
   */
  public void leave(Duration timeout) {
    NodeState state = ownState();
    if (state != NodeState.ACTIVE) {
      log.info("node={} stopping while {}: nothing to ask the primary", id, state == null ? "not in the map"
          : state.wireName());
      return;
    }
    try {
      for (Path dir : systemDirs.get()) {
        MetadataFiles.writeAtomically(dir.resolve(RECORD), "suspended for a restart\n".getBytes(StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      log.warn("node={} cannot record the short leave ({}): after the restart it stays suspended until "
          + "`granary cluster set-state {} active`", id, e.toString(), id);
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("state", "maintenance");
    body.put("rebalance", false);
    try {
      client.send("PUT", nodeUrl(), body, Void.class).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      log.info("node={} suspended for a restart (maintenance without rebalance): its objects stay in place and "
          + "answer 503 until it is back", id);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      log.warn("node={} could not ask the primary for a short maintenance ({}); it stops anyway and will show "
          + "offline", id, ControlClient.cause(e).toString());
    }
  }

  /**
   * After a start: if this target left for a restart, it asks to be active again as soon as it holds a map from the
   * primary (the registration's answer, which may be no newer than its own copy, so it is checked for, not
   * awaited as a change) that shows it suspended; the record is removed once it is active.
   */
  public void returnAfterRestart() {
    if (systemDirs.get().stream().noneMatch(d -> Files.exists(d.resolve(RECORD)))) {
      return;
    }
    log.info("node={} left for a restart: it asks to be active again once registered", id);
    watch = scheduler.scheduleWithFixedDelay(this::maybeReturn, CHECK_MS, CHECK_MS, TimeUnit.MILLISECONDS);
  }

  private void maybeReturn() {
    if (closed || !holder.receivedSinceStart() || returning.get()) {
      return;
    }
    NodeState state = ownState();
    if (state == NodeState.SUSPENDED) {
      returning.set(true);
      askActive();
    } else if (state != null) {
      returned(); // active again (or an operator changed its state meanwhile): the restart is over
    }
  }

  private void askActive() {
    client.send("PUT", nodeUrl(), Map.of("state", "active"), Void.class).whenComplete((ok, err) -> {
      if (err == null) {
        log.info("node={} back from its restart: active again, in the same place", id);
        returned();
      } else {
        if (failures++ % 20 == 0) {
          log.warn("node={} cannot end its restart suspension yet ({} attempts): {}", id, failures,
              ControlClient.cause(err).toString());
        }
        returning.set(false); // the next check asks again
      }
    });
  }

  private void returned() {
    ScheduledFuture<?> w = watch;
    if (w != null) {
      w.cancel(false);
    }
    removeRecord();
  }

  private void removeRecord() {
    for (Path dir : systemDirs.get()) {
      try {
        Files.deleteIfExists(dir.resolve(RECORD));
      } catch (IOException e) {
        log.warn("node={} cannot remove {}: {}", id, dir.resolve(RECORD), e.toString());
      }
    }
  }

  private NodeState ownState() {
    return holder.snapshot().flatMap(s -> s.map().node(id)).map(Node::state).orElse(null);
  }

  /** This node's URL on the primary the map names, else on the configured one (which forwards to the primary). */
  private String nodeUrl() {
    String primary = holder.snapshot().map(ClusterMetadataHolder.Snapshot::map)
        .flatMap(m -> m.node(m.primary()).map(Node::url)).orElse(configuredPrimary);
    String base = primary.endsWith("/") ? primary.substring(0, primary.length() - 1) : primary;
    return base + ApiPaths.CLUSTER_NODES + URLEncoder.encode(id, StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    closed = true;
    ScheduledFuture<?> w = watch;
    if (w != null) {
      w.cancel(false);
    }
  }
}
