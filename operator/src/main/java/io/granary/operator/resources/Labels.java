package io.granary.operator.resources;

import io.granary.operator.customresource.GranaryCluster;
import java.util.LinkedHashMap;
import java.util.Map;

/** The recommended app.kubernetes.io labels; selectors use the stable subset (name, instance, component). */
public final class Labels {
  public static final String NAME = "app.kubernetes.io/name";
  public static final String INSTANCE = "app.kubernetes.io/instance";
  public static final String COMPONENT = "app.kubernetes.io/component";
  public static final String MANAGED_BY = "app.kubernetes.io/managed-by";
  public static final String MANAGER = "granary-operator";

  private Labels() {
  }

  /** Labels of every object of the cluster. */
  public static Map<String, String> of(GranaryCluster c) {
    Map<String, String> m = new LinkedHashMap<>();
    m.put(NAME, "granary");
    m.put(INSTANCE, c.getMetadata().getName());
    m.put(MANAGED_BY, MANAGER);
    return m;
  }

  /** Labels of the objects of one role. */
  public static Map<String, String> of(GranaryCluster c, Role role) {
    Map<String, String> m = of(c);
    m.put(COMPONENT, role.word());
    return m;
  }

  /** What selects the pods of one role: never changes for a cluster (a StatefulSet's selector is immutable). */
  public static Map<String, String> selector(GranaryCluster c, Role role) {
    return Map.of(NAME, "granary", INSTANCE, c.getMetadata().getName(), COMPONENT, role.word());
  }
}
