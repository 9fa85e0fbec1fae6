package io.granary.clustermap;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * An immutable, versioned snapshot of cluster membership.
 *
 * <p>Only the primary proxy makes new versions; every change bumps {@link #version()} by one. Nodes keep the
 * newest version they have seen and reject older ones and maps of another cluster ({@link #uuid()}).
 *
 * @param version monotonically increasing, starting at 1
 * @param uuid cluster id, assigned once when the primary first starts, never changes
 * @param primary id of the primary proxy (the single writer of cluster metadata)
 * @param proxies proxies by id
 * @param targets targets by id
 * @param created when the cluster was created
 * @param rebalance the latest rebalance the primary started, or null before the first
 * @param retired ids of targets that were decommissioned and left the map: they may not join again under that id
 * @param epoch the primary's term: 0 for a fixed primary; under Kubernetes Lease election, one more for each proxy that
 *     takes over as primary. Nodes refuse maps of an older epoch, so a deposed primary cannot overwrite newer metadata
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record ClusterMap(
    long version, String uuid, String primary, Map<String, Node> proxies, Map<String, Node> targets,
    Instant created, Rebalance rebalance, Set<String> retired, long epoch) {

  public ClusterMap {
    Objects.requireNonNull(uuid, "uuid");
    Objects.requireNonNull(primary, "primary");
    if (version < 1) {
      throw new IllegalArgumentException("cluster map version must be >= 1, got " + version);
    }
    proxies = Collections.unmodifiableMap(new TreeMap<>(proxies == null ? Map.of() : proxies));
    targets = Collections.unmodifiableMap(new TreeMap<>(targets == null ? Map.of() : targets));
    created = created == null ? Instant.EPOCH : created;
    retired = Collections.unmodifiableSet(new TreeSet<>(retired == null ? Set.of() : retired));
    for (Map.Entry<String, Node> e : proxies.entrySet()) {
      checkEntry(e, NodeRole.PROXY);
    }
    for (Map.Entry<String, Node> e : targets.entrySet()) {
      checkEntry(e, NodeRole.TARGET);
    }
    if (epoch < 0) {
      throw new IllegalArgumentException("cluster map epoch must be >= 0, got " + epoch);
    }
    if (!proxies.containsKey(primary)) {
      throw new IllegalArgumentException("primary '" + primary + "' is not among the proxies");
    }
  }

  private static void checkEntry(Map.Entry<String, Node> e, NodeRole role) {
    if (!e.getKey().equals(e.getValue().id()) || e.getValue().role() != role) {
      throw new IllegalArgumentException("map entry '" + e.getKey() + "' does not match node " + e.getValue());
    }
  }

  /** A map without a rebalance or retired targets (tests, and maps written before rebalancing existed). */
  public ClusterMap(long version, String uuid, String primary, Map<String, Node> proxies, Map<String, Node> targets,
      Instant created) {
    this(version, uuid, primary, proxies, targets, created, null, Set.of(), 0);
  }

  /** From JSON: {@code epoch} is absent in maps written before elections existed, epoch 0. */
  @JsonCreator
  static ClusterMap fromJson(@JsonProperty("version") long version, @JsonProperty("uuid") String uuid,
      @JsonProperty("primary") String primary, @JsonProperty("proxies") Map<String, Node> proxies,
      @JsonProperty("targets") Map<String, Node> targets, @JsonProperty("created") Instant created,
      @JsonProperty("rebalance") Rebalance rebalance, @JsonProperty("retired") Set<String> retired,
      @JsonProperty("epoch") Long epoch) {
    return new ClusterMap(version, uuid, primary, proxies, targets, created, rebalance, retired,
        epoch == null ? 0 : epoch);
  }

  /** A map of epoch 0: a fixed primary (and maps written before elections existed). */
  public ClusterMap(long version, String uuid, String primary, Map<String, Node> proxies, Map<String, Node> targets,
      Instant created, Rebalance rebalance, Set<String> retired) {
    this(version, uuid, primary, proxies, targets, created, rebalance, retired, 0);
  }

  /** The first map of a new cluster: version 1 with the primary as its only node. */
  public static ClusterMap bootstrap(String uuid, Node primary, Instant now) {
    return new ClusterMap(1, uuid, primary.id(), Map.of(primary.id(), primary), Map.of(), now);
  }

  public Optional<Node> node(String id) {
    Node n = targets.get(id);
    return Optional.ofNullable(n != null ? n : proxies.get(id));
  }

  @JsonIgnore
  public Node primaryNode() {
    return proxies.get(primary);
  }

  /** A new version with {@code node} added or replaced. */
  public ClusterMap withNode(Node node) {
    Map<String, Node> p = new TreeMap<>(proxies);
    Map<String, Node> t = new TreeMap<>(targets);
    (node.role() == NodeRole.PROXY ? p : t).put(node.id(), node);
    return new ClusterMap(version + 1, uuid, primary, p, t, created, rebalance, retired, epoch);
  }

  /**
   * A new version in which {@code self} (added, or refreshed at its URL and active) is the primary of {@code
   * newEpoch}: what a proxy that won the election publishes first, so every node follows it and refuses the
   * deposed primary's older epoch.
   */
  public ClusterMap withPrimary(Node self, long newEpoch) {
    if (self.role() != NodeRole.PROXY) {
      throw new IllegalArgumentException("the primary must be a proxy, not " + self);
    }
    if (newEpoch <= epoch) {
      throw new IllegalArgumentException("a new primary's epoch must be above " + epoch + ", got " + newEpoch);
    }
    Map<String, Node> p = new TreeMap<>(proxies);
    p.put(self.id(), self);
    return new ClusterMap(version + 1, uuid, self.id(), p, targets, created, rebalance, retired, newEpoch);
  }

  /** A new version without node {@code id}, which may join again under the same id (it never held data). */
  public ClusterMap without(String id) {
    Map<String, Node> p = new TreeMap<>(proxies);
    Map<String, Node> t = new TreeMap<>(targets);
    p.remove(id);
    t.remove(id);
    return new ClusterMap(version + 1, uuid, primary, p, t, created, rebalance, retired, epoch);
  }

  /** A new version without target {@code id}, which is recorded as retired (decommissioned for good). */
  public ClusterMap retire(String id) {
    Map<String, Node> t = new TreeMap<>(targets);
    t.remove(id);
    Set<String> r = new TreeSet<>(retired);
    r.add(id);
    return new ClusterMap(version + 1, uuid, primary, proxies, t, created, rebalance, r, epoch);
  }

  /** A new version carrying {@code next} as the cluster's rebalance. */
  public ClusterMap withRebalance(Rebalance next) {
    return new ClusterMap(version + 1, uuid, primary, proxies, targets, created, next, retired, epoch);
  }

  /**
   * This same version with {@code next} as its rebalance: for the primary only, to start a rebalance in the very
   * version whose placement change asks for it (never on a map already published).
   */
  public ClusterMap startingRebalance(Rebalance next) {
    return new ClusterMap(version, uuid, primary, proxies, targets, created, next, retired, epoch);
  }

  /**
   * Whether every object is known to be on its owner: no rebalance has started, or the latest finished. While not
   * settled (running or aborted), an owner that misses an object asks its peers before answering 404.
   */
  @JsonIgnore
  public boolean settled() {
    return rebalance == null || rebalance.state() == Rebalance.State.FINISHED;
  }

  /**
   * What decides placement: each target in placement with its weight, in id order. Two maps with the same
   * signature place every object on the same target.
   */
  @JsonIgnore
  public List<String> placementSignature() {
    return targets.values().stream().filter(n -> n.state().inPlacement()).map(n -> n.id() + "@" + n.weight())
        .toList();
  }

  /** Whether {@code other} is a map of this same cluster. */
  public boolean sameCluster(ClusterMap other) {
    return uuid.equals(other.uuid);
  }

  /** Target placement for this version; cheap to keep, costly to rebuild per request. */
  public TargetPlacement placement() {
    return new TargetPlacement(this);
  }
}
