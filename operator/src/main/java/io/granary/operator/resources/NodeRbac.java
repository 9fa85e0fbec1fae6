package io.granary.operator.resources;

import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.granary.operator.customresource.GranaryCluster;

/**
 * What the node pods may do in the API: the proxies hold the primary's Lease and keep the cluster map in a
 * ConfigMap of their namespace. Nothing else, and nothing outside the namespace.
 */
public final class NodeRbac {
  static final String[] VERBS = {"get", "list", "watch", "create", "update", "patch"};

  private NodeRbac() {
  }

  public static ServiceAccount serviceAccount(GranaryCluster c) {
    return new ServiceAccountBuilder().withMetadata(Owned.meta(c, Names.nodeAccount(c), Labels.of(c))).build();
  }

  public static io.fabric8.kubernetes.api.model.rbac.Role role(GranaryCluster c) {
    return new io.fabric8.kubernetes.api.model.rbac.RoleBuilder()
        .withMetadata(Owned.meta(c, Names.nodeAccount(c), Labels.of(c)))
        .withRules(
            new PolicyRuleBuilder().withApiGroups("coordination.k8s.io").withResources("leases").withVerbs(VERBS)
                .build(),
            new PolicyRuleBuilder().withApiGroups("").withResources("configmaps").withVerbs(VERBS).build())
        .build();
  }

  public static RoleBinding roleBinding(GranaryCluster c) {
    return new RoleBindingBuilder()
        .withMetadata(Owned.meta(c, Names.nodeAccount(c), Labels.of(c)))
        .withNewRoleRef().withApiGroup("rbac.authorization.k8s.io").withKind("Role")
        .withName(Names.nodeAccount(c)).endRoleRef()
        .addNewSubject().withKind("ServiceAccount").withName(Names.nodeAccount(c))
        .withNamespace(c.getMetadata().getNamespace()).endSubject()
        .build();
  }
}
