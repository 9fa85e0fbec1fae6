package io.granary.clustermap;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/**
 * The life-cycle state of a node in the cluster map.
 *
 * <p>Only {@link #MAINTENANCE} and {@link #DECOMMISSIONED} take a target out of placement. An {@link #OFFLINE}
 * target keeps its HRW place: a restarting pod must not reshuffle the cluster, so requests for its objects are
 * answered "try again" until it returns.
 */
public enum NodeState {
  /** Registered and answering health checks. */
  ACTIVE,
  /** Stopped answering health checks; keeps its place in HRW. Set by the primary, never by users. */
  OFFLINE,
  /** Taken out of placement by an operator; may come back. */
  MAINTENANCE,
  /** Permanently out of placement. */
  DECOMMISSIONED;

  /** Whether HRW places objects on a node in this state. */
  public boolean inPlacement() {
    return this == ACTIVE || this == OFFLINE;
  }

  @JsonValue
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Parses the wire name, case-insensitively; throws {@link IllegalArgumentException} naming the valid values. */
  public static NodeState parse(String s) {
    for (NodeState st : values()) {
      if (st.wireName().equalsIgnoreCase(s)) {
        return st;
      }
    }
    throw new IllegalArgumentException(
        "unknown node state '" + s + "': expected one of active, offline, maintenance, decommissioned");
  }

  @JsonCreator
  static NodeState fromJson(String s) {
    return parse(s);
  }
}
