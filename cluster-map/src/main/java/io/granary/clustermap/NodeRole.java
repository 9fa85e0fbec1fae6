package io.granary.clustermap;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** What a node does: a proxy routes and holds no objects; a target stores objects. */
public enum NodeRole {
  PROXY,
  TARGET;

  @JsonValue
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
