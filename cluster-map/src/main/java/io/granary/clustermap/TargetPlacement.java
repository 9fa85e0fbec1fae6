package io.granary.clustermap;

import io.granary.clustermap.hrw.Rendezvous;
import java.util.List;
import java.util.Optional;

/**
 * Which target owns which object under one cluster-map version.
 *
 * <p>Candidates are the targets in placement: {@link NodeState#ACTIVE} and {@link NodeState#OFFLINE}. An offline
 * owner is still the owner (callers answer "retry later"), so a pod restart never reshuffles objects.
 */
public final class TargetPlacement {
  private final ClusterMap map;
  private final Rendezvous<Node> hrw;
  private final Rendezvous<Node> everyTarget; // placement and leaving targets alike: where previous owners rank

  TargetPlacement(ClusterMap map) {
    this.map = map;
    List<Node> candidates = map.targets().values().stream().filter(n -> n.state().inPlacement()).toList();
    this.hrw = new Rendezvous<>(candidates, Node::id, Node::weight);
    this.everyTarget = new Rendezvous<>(List.copyOf(map.targets().values()), Node::id, Node::weight);
  }

  public ClusterMap map() {
    return map;
  }

  /** The owner of an object with placement-key digest {@code keyDigest}, or empty when no target is placed. */
  public Optional<Node> owner(long keyDigest) {
    return Optional.ofNullable(hrw.pick(keyDigest));
  }

  /** The first {@code n} targets in HRW order for a key digest. */
  public List<Node> ranked(long keyDigest, int n) {
    return hrw.ranked(keyDigest, n);
  }

  public int size() {
    return hrw.size();
  }

  /**
   * Every target of the map in HRW order for a key digest, whatever its state: where an object not yet moved by a
   * rebalance is most likely to be. Rendezvous ranks any two targets the same way whatever the others, so the owner
   * under a previous map comes before every other target that was placed in that map.
   */
  public List<Node> rankedHolders(long keyDigest) {
    return everyTarget.ranked(keyDigest, everyTarget.size());
  }

  /**
   * The targets that may hold objects: those in placement and, until the map is {@link ClusterMap#settled}, those
   * that left placement but may still hold what a rebalance has not moved yet. Listings ask all of them.
   */
  public List<Node> holders() {
    return map.targets().values().stream().filter(n -> n.state().inPlacement() || !map.settled()).toList();
  }
}
