package io.granary.target.jobs;

import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.Node;
import io.granary.clustermap.TargetPlacement;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.hrw.PlacementKey;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * Which names of a walk this target acts on: those it owns by HRW, computed exactly as the proxy redirects
 * ({@code placement().owner(PlacementKey.digest(bucket, name))}), so the union over targets is every name once.
 *
 * <p>The placement is re-read per name (a volatile read). If the set of placed targets changes during the job the
 * union is no longer exact (a new target owns names nobody walks for it), so {@link #owns} throws
 * {@link PlacementChangedException} and the job fails asking for a retry. An offline target keeps its place, so
 * a restart elsewhere does not trip this.
 */
final class Ownership {
  private final String self;
  private final Bucket bucket;
  private final Supplier<TargetPlacement> placement;
  private final Set<String> placedAtStart;
  private final long versionAtStart;
  private TargetPlacement lastChecked; // walker thread only

  Ownership(String self, Bucket bucket, Supplier<TargetPlacement> placement) {
    this.self = self;
    this.bucket = bucket;
    this.placement = placement;
    TargetPlacement p = placement.get();
    this.placedAtStart = placed(p.map());
    this.versionAtStart = p.map().version();
    this.lastChecked = p;
  }

  /** Whether this target owns {@code name} now. */
  boolean owns(String name) {
    TargetPlacement p = placement.get();
    if (p != lastChecked) {
      if (!placed(p.map()).equals(placedAtStart)) {
        throw new PlacementChangedException("the targets in placement changed (cluster map v" + versionAtStart
            + " -> v" + p.map().version() + ") while the job ran; start it again to cover every object");
      }
      lastChecked = p;
    }
    return p.owner(PlacementKey.digest(bucket, name)).map(n -> n.id().equals(self)).orElse(false);
  }

  private static Set<String> placed(ClusterMap map) {
    Set<String> ids = new TreeSet<>();
    for (Node n : map.targets().values()) {
      if (n.state().inPlacement()) {
        ids.add(n.id());
      }
    }
    return ids;
  }

  /** The placed targets changed mid-walk; the job cannot promise to cover its selection any more. */
  static final class PlacementChangedException extends RuntimeException {
    PlacementChangedException(String message) {
      super(message, null, false, false);
    }
  }
}
