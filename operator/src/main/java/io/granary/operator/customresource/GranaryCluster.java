package io.granary.operator.customresource;

import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/** One Granary cluster: proxies and targets in a namespace, kept as the spec says by the operator. */
@Group(GranaryCluster.GROUP)
@Version(GranaryCluster.VERSION)
@ShortNames("gc")
public class GranaryCluster extends CustomResource<GranaryClusterSpec, GranaryClusterStatus> implements Namespaced {
  public static final String GROUP = "granary.io";
  public static final String VERSION = "v1alpha1";
}
