package io.granary.operator;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.granary.operator.customresource.GranaryCluster;
import io.granary.operator.customresource.GranaryClusterSpec;
import io.granary.operator.customresource.Mountpath;

/** Custom resources for tests. */
public final class Fixtures {
  private Fixtures() {
  }

  /** A cluster with 1 proxy, {@code targets} targets and two 10Gi volume mountpaths. */
  public static GranaryCluster cluster(String name, String namespace, int targets) {
    GranaryCluster c = new GranaryCluster();
    c.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(namespace).withUid("uid-" + name)
        .withGeneration(1L).build());
    GranaryClusterSpec s = new GranaryClusterSpec();
    s.image = "granary:test";
    s.target.replicas = targets;
    s.target.mountpaths.add(volume("d1", "10Gi"));
    s.target.mountpaths.add(volume("d2", "10Gi"));
    c.setSpec(s);
    return c;
  }

  public static Mountpath volume(String name, String size) {
    Mountpath m = new Mountpath();
    m.name = name;
    m.size = size;
    return m;
  }

  public static Mountpath hostPath(String name, String path) {
    Mountpath m = new Mountpath();
    m.name = name;
    m.hostPath = path;
    return m;
  }
}
