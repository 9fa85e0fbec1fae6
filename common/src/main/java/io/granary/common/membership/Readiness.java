package io.granary.common.membership;

import java.util.ArrayList;
import java.util.List;

/**
 * Whether a node can take client requests now, as {@code GET /v1/health/ready} reports it. Liveness
 * ({@code /v1/health}) only says the process answers; readiness says it holds what serving needs. Each node kind
 * defines its own conditions (docs/http-api.md, "Health and readiness").
 */
@FunctionalInterface
public interface Readiness {
  /**
   * What keeps this node from being ready, one sentence each, empty when it is ready. Runs on an event loop: it
   * reads in-memory state only, no I/O.
   */
  List<String> blockers();

  /** Ready when every one of {@code parts} is; the blockers of all of them, in order. */
  static Readiness all(Readiness... parts) {
    return () -> {
      List<String> why = new ArrayList<>();
      for (Readiness r : parts) {
        why.addAll(r.blockers());
      }
      return why;
    };
  }
}
