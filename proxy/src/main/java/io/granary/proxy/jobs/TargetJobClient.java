package io.granary.proxy.jobs;

import io.granary.clustermap.Node;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/** The targets' internal job endpoints, as a proxy calls them. Futures fail on any error but "no such job". */
interface TargetJobClient {
  /** Starts the job on {@code target}; completes with its first snapshot. */
  CompletableFuture<TargetSnapshot> start(Node target, TargetJobSpec spec);

  /** The target's snapshot of job {@code id}; empty when the target does not know it. */
  CompletableFuture<Optional<TargetSnapshot>> get(Node target, String id);

  /** Every job the target knows, without failure lists. */
  CompletableFuture<List<TargetSnapshot>> list(Node target);

  /** Aborts job {@code id} on the target; empty when the target does not know it. */
  CompletableFuture<Optional<TargetSnapshot>> abort(Node target, String id);
}
