package io.granary.proxy.membership;

import io.granary.clustermap.ClusterMap;

/**
 * Decides whether targets may leave placement: the objects they hold must fit on the targets that stay. Runs under
 * the authority's lock, before the change is published; may block (it asks the targets).
 */
@FunctionalInterface
public interface LeaveGuard {
  /** Admits everything (tests of the authority that have no targets to ask). */
  LeaveGuard NONE = (current, next) -> { };

  /**
   * Throws a 409 {@code io.granary.common.error.ConflictException} when the targets in placement in {@code next}
   * cannot take what the targets leaving placement (in placement in {@code current}, not in {@code next}) hold.
   */
  void admit(ClusterMap current, ClusterMap next);
}
