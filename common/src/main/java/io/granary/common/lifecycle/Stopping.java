package io.granary.common.lifecycle;

import io.granary.common.membership.Readiness;
import java.util.List;

/**
 * Set once a node begins to stop. As a {@link Readiness} it blocks readiness from that moment, so a load balancer
 * (a Kubernetes Service) stops sending new clients before the listener closes.
 */
public final class Stopping implements Readiness {
  private volatile boolean stopping;

  /** Marks the node stopping; returns false when it already was. */
  public synchronized boolean begin() {
    boolean first = !stopping;
    stopping = true;
    return first;
  }

  public boolean isStopping() {
    return stopping;
  }

  @Override
  public List<String> blockers() {
    return stopping ? List.of("is shutting down") : List.of();
  }
}
