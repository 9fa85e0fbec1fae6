package io.granary.clustermap;

import com.fasterxml.jackson.annotation.JsonValue;

/** What a node does: a proxy routes and holds no objects; a target stores objects. */
public enum NodeRole {
  PROXY,
  TARGET;

  @JsonValue
  public String wireName() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
