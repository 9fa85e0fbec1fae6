package io.granary.charts;

import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import java.util.List;

/** What a list of RBAC rules grants, the way the API server's authorizer reads them (with "*" wildcards). */
final class Rbac {
  private Rbac() {
  }

  /** One verb on one resource of one API group ("" is the core group). */
  record Permission(String group, String resource, String verb) {
    @Override
    public String toString() {
      return verb + " " + (group.isEmpty() ? "" : group + "/") + resource;
    }
  }

  static boolean grants(List<PolicyRule> rules, Permission p) {
    return rules.stream().anyMatch(r -> matches(r.getApiGroups(), p.group())
        && matches(r.getResources(), p.resource()) && matches(r.getVerbs(), p.verb()));
  }

  /** Every permission of these resources in this group with these verbs. */
  static List<Permission> all(String group, List<String> resources, String... verbs) {
    return resources.stream().flatMap(r -> List.of(verbs).stream().map(v -> new Permission(group, r, v))).toList();
  }

  private static boolean matches(List<String> granted, String wanted) {
    return granted != null && (granted.contains("*") || granted.contains(wanted));
  }
}
