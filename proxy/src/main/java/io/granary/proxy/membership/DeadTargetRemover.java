package io.granary.proxy.membership;

import io.granary.clustermap.Node;
import io.granary.common.api.ApiPaths;
import io.granary.common.control.ControlClient;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.membership.ClusterMetadataHolder;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Removes a dead target by force, on the primary: checks the request against the map ({@link RemovalCheck}), asks
 * the target's health endpoint once so a target the map has not yet seen come back is not removed while alive,
 * then has the authority remove it (checked again there, under its lock, so a concurrent change is either applied
 * before it and seen, or after it).
 *
 * <p>Threads: the probe completes on the control client's threads; the removal (it persists and pushes metadata)
 * runs on the control pool. Nothing blocks the caller.
 */
public final class DeadTargetRemover {
  private final ClusterMetadataHolder holder;
  private final ClusterAuthority authority;
  private final ControlClient client;
  private final BoundedExecutor control;

  public DeadTargetRemover(ClusterMetadataHolder holder, ClusterAuthority authority, ControlClient client,
      BoundedExecutor control) {
    this.holder = holder;
    this.authority = authority;
    this.client = client;
    this.control = control;
  }

  /** Removes target {@code id}; fails with 404 or 409 (see {@link RemovalCheck}), changing nothing. */
  public CompletableFuture<ForcedRemoval> remove(String id, boolean force) {
    Node n = RemovalCheck.require(holder.require().map(), id, force);
    return client.get(n.url() + ApiPaths.HEALTH, Map.class).handle((health, err) ->
            err == null && id.equals(String.valueOf(health.get("node"))))
        .thenCompose(alive -> {
          if (alive) {
            throw RemovalCheck.answered(n);
          }
          return control.submit(() -> authority.removeDeadTarget(id));
        });
  }
}
