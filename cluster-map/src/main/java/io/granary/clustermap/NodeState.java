package io.granary.clustermap;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/**
 * The life-cycle state of a node in the cluster map.
 *
 * <table>
 *   <caption>What each state means for placement and serving</caption>
 *   <tr><th>state</th><th>in HRW placement</th><th>answers requests</th><th>set by</th></tr>
 *   <tr><td>{@link #JOINING}</td><td>no</td><td>yes (it holds nothing yet)</td><td>a new target's registration</td></tr>
 *   <tr><td>{@link #ACTIVE}</td><td>yes</td><td>yes</td><td>joining, health checks, an operator</td></tr>
 *   <tr><td>{@link #OFFLINE}</td><td>yes</td><td>no: 503</td><td>the primary's health checks</td></tr>
 *   <tr><td>{@link #SUSPENDED}</td><td>yes</td><td>no: 503</td><td>an operator (maintenance without rebalance)</td></tr>
 *   <tr><td>{@link #MAINTENANCE}</td><td>no</td><td>to peers, while its data moves off</td><td>an operator</td></tr>
 *   <tr><td>{@link #DECOMMISSIONING}</td><td>no</td><td>to peers, while its data moves off</td><td>an operator</td></tr>
 * </table>
 *
 * <p>An offline or suspended target keeps its place: a pod restart must not reshuffle the cluster, so requests for
 * its objects are answered "try again" until it returns. A target in maintenance or being decommissioned leaves
 * placement, so a rebalance moves its objects to their new owners; it keeps serving them to its peers meanwhile.
 *
 * <p>A new target joins in two steps: its first registration adds it as joining, out of placement, and answers
 * with the cluster metadata; once it holds that metadata it registers again and becomes active, which starts the
 * rebalance. Clients are routed to it only from then on, so no request waits for a target still receiving its first
 * map.
 */
public enum NodeState {
  /** A new target that registered but does not hold the cluster metadata yet: out of placement, holds nothing. */
  JOINING,
  /** Registered and answering health checks. */
  ACTIVE,
  /** Stopped answering health checks; keeps its place in HRW. Set by the primary, never by users. */
  OFFLINE,
  /** Maintenance without rebalance (a short restart): keeps its HRW place, its objects answer 503 meanwhile. */
  SUSPENDED,
  /** Maintenance with rebalance (a long absence): out of placement, its objects move to the other targets. */
  MAINTENANCE,
  /** Leaving for good: out of placement; once its objects have moved it leaves the map. */
  DECOMMISSIONING;

  /** Whether HRW places objects on a node in this state. */
  public boolean inPlacement() {
    return this == ACTIVE || this == OFFLINE || this == SUSPENDED;
  }

  /** Whether the node answers requests for the objects it holds (clients for placed nodes, peers for leaving ones). */
  public boolean serving() {
    return this == ACTIVE || this == JOINING || this == MAINTENANCE || this == DECOMMISSIONING;
  }

  @JsonValue
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Parses the wire name, case-insensitively; throws {@link IllegalArgumentException} naming the valid values.
   * {@code decommissioned}, the state operators ask for, reads as {@link #DECOMMISSIONING}.
   */
  public static NodeState parse(String s) {
    for (NodeState st : values()) {
      if (st.wireName().equalsIgnoreCase(s)) {
        return st;
      }
    }
    if ("decommissioned".equalsIgnoreCase(s)) {
      return DECOMMISSIONING;
    }
    throw new IllegalArgumentException("unknown node state '" + s
        + "': expected one of joining, active, offline, suspended, maintenance, decommissioning (or decommissioned)");
  }

  @JsonCreator
  static NodeState fromJson(String s) {
    return parse(s);
  }
}
