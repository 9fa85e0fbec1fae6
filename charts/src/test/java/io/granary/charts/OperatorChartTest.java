package io.granary.charts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleRef;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.granary.charts.Rbac.Permission;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** helm/granary-operator: lint, render, and check what the rendered objects promise. */
class OperatorChartTest {

  /**
   * What the operator does (docs/operator.md, operator/'s reconciler and NodeRbac), as the RBAC permissions it needs
   * in a watched namespace.
   */
  static final List<Permission> OPERATOR_NEEDS = needs();

  private static List<Permission> needs() {
    List<Permission> p = new ArrayList<>();
    p.addAll(Rbac.all("granary.io", List.of("granaryclusters"), "get", "list", "watch", "update", "patch"));
    p.addAll(Rbac.all("granary.io", List.of("granaryclusters/status"), "get", "update", "patch"));
    p.addAll(Rbac.all("granary.io", List.of("granaryclusters/finalizers"), "update"));
    String[] owns = {"get", "list", "watch", "create", "update", "patch", "delete"};
    p.addAll(Rbac.all("apps", List.of("statefulsets"), owns));
    p.addAll(Rbac.all("", List.of("services", "configmaps", "secrets", "serviceaccounts"), owns));
    p.addAll(Rbac.all("policy", List.of("poddisruptionbudgets"), owns));
    p.addAll(Rbac.all("rbac.authorization.k8s.io", List.of("roles", "rolebindings"), owns));
    // Kept on delete unless spec.deleteVolumes: then the finalizer deletes them by label, as one collection.
    p.addAll(Rbac.all("", List.of("persistentvolumeclaims"), "get", "list", "watch", "delete", "deletecollection"));
    // A rolling upgrade deletes one target pod at a time.
    p.addAll(Rbac.all("", List.of("pods"), "get", "list", "watch", "delete"));
    // The proxies' Role grants these (Lease election, metadata ConfigMap): RBAC lets the operator grant only what
    // it holds itself.
    p.addAll(Rbac.all("coordination.k8s.io", List.of("leases"), "get", "list", "watch", "create", "update", "patch"));
    p.addAll(Rbac.all("", List.of("events"), "create", "patch"));
    return List.copyOf(p);
  }

  private static Rendered render(Map<String, String> set) {
    var cmd = Charts.template(Charts.OPERATOR, "granary-operator");
    set.forEach(cmd::set);
    return Rendered.template(cmd);
  }

  @Test
  void lint_strict_passes() {
    var result = Charts.lintStrict(Charts.OPERATOR);
    assertThat(result.isFailed()).as("helm lint --strict: %s", result.getMessages()).isFalse();
  }

  @Test
  void templates_neverCallLookup() {
    Charts.assertNoLookup(Charts.OPERATOR);
  }

  @Test
  void defaultValues_renderKnownKindsWithoutUnknownFields() {
    Rendered r = render(Map.of());
    Charts.assertWellFormed(r);
    assertThat(r.all().stream().map(Manifest::kind).collect(Collectors.toSet())).containsExactlyInAnyOrder(
        "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "Deployment");
  }

  @Test
  void deployment_selectorMatchesItsPodLabels_andRunsTheOperatorRole() {
    Deployment d = render(Map.of()).one(Deployment.class);
    Map<String, String> selector = d.getSpec().getSelector().getMatchLabels();
    assertThat(selector).isNotEmpty();
    assertThat(d.getSpec().getTemplate().getMetadata().getLabels()).containsAllEntriesOf(selector);

    Container c = d.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(c.getImage()).isEqualTo("granary:0.1.0");
    assertThat(c.getArgs()).containsExactly("operator");
    assertThat(c.getEnv()).extracting(EnvVar::getName)
        .contains("GRANARY_OPERATOR_NAMESPACE", "GRANARY_WATCH_NAMESPACES");
  }

  @Test
  void deployment_runsAsTheImagesNonRootUser_onAReadOnlyRoot() {
    Deployment d = render(Map.of()).one(Deployment.class);
    var pod = d.getSpec().getTemplate().getSpec();
    assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
    assertThat(pod.getSecurityContext().getRunAsUser()).isEqualTo(DockerImageIT.IMAGE_UID);
    var container = pod.getContainers().get(0);
    assertThat(container.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    assertThat(container.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
    // The JVM writes to /tmp even so.
    assertThat(container.getVolumeMounts()).anySatisfy(m -> assertThat(m.getMountPath()).isEqualTo("/tmp"));
  }

  @Test
  void serviceAccount_isTheOneTheDeploymentAndEveryBindingUse() {
    Rendered r = render(Map.of());
    ServiceAccount sa = r.one(ServiceAccount.class);
    assertThat(sa.getMetadata().getNamespace()).isEqualTo(Charts.NAMESPACE);
    assertThat(r.one(Deployment.class).getSpec().getTemplate().getSpec().getServiceAccountName())
        .isEqualTo(sa.getMetadata().getName());
    List<Subject> subjects = new ArrayList<>();
    r.of(ClusterRoleBinding.class).forEach(b -> subjects.addAll(b.getSubjects()));
    r.of(RoleBinding.class).forEach(b -> subjects.addAll(b.getSubjects()));
    assertThat(subjects).isNotEmpty().allSatisfy(s -> {
      assertThat(s.getKind()).isEqualTo("ServiceAccount");
      assertThat(s.getName()).isEqualTo(sa.getMetadata().getName());
      assertThat(s.getNamespace()).isEqualTo(Charts.NAMESPACE);
    });
  }

  @Test
  void clusterWide_clusterRoleGrantsEverythingTheOperatorDoes_withoutWildcards() {
    Rendered r = render(Map.of());
    ClusterRole role = r.one(ClusterRole.class);
    List<PolicyRule> rules = role.getRules();
    assertThat(OPERATOR_NEEDS)
        .allSatisfy(p -> assertThat(Rbac.grants(rules, p)).as("ClusterRole grants %s", p).isTrue());
    assertThat(rules).allSatisfy(rule -> {
      assertThat(rule.getVerbs()).doesNotContain("*");
      assertThat(rule.getResources()).doesNotContain("*");
      assertThat(rule.getApiGroups()).doesNotContain("*");
    });
    assertBound(r.one(ClusterRoleBinding.class).getRoleRef(), "ClusterRole", role.getMetadata().getName());
  }

  @Test
  void watchNamespaces_getARoleEach_andNothingClusterWide() {
    Rendered r = render(Map.of("watchNamespaces[0]", "team-a", "watchNamespaces[1]", "team-b"));
    Charts.assertWellFormed(r);
    assertThat(r.of(ClusterRole.class)).isEmpty();
    assertThat(r.of(ClusterRoleBinding.class)).isEmpty();
    for (String ns : List.of("team-a", "team-b")) {
      Role role = r.of(Role.class).stream().filter(x -> ns.equals(x.getMetadata().getNamespace())).findFirst()
          .orElseThrow(() -> new AssertionError("no Role in " + ns));
      assertThat(OPERATOR_NEEDS).allSatisfy(p ->
          assertThat(Rbac.grants(role.getRules(), p)).as("Role in %s grants %s", ns, p).isTrue());
      RoleBinding binding = r.of(RoleBinding.class).stream().filter(b -> ns.equals(b.getMetadata().getNamespace()))
          .findFirst().orElseThrow(() -> new AssertionError("no RoleBinding in " + ns));
      assertBound(binding.getRoleRef(), "Role", role.getMetadata().getName());
    }
    EnvVar watch = r.one(Deployment.class).getSpec().getTemplate().getSpec().getContainers().get(0).getEnv().stream()
        .filter(e -> e.getName().equals("GRANARY_WATCH_NAMESPACES")).findFirst().orElseThrow();
    assertThat(watch.getValue()).isEqualTo("team-a,team-b");
  }

  @Test
  void leaderElection_roleInTheReleaseNamespaceCoversTheLease() {
    Rendered r = render(Map.of());
    Role role = r.of(Role.class).stream().filter(x -> x.getMetadata().getName().endsWith("-leader-election"))
        .findFirst().orElseThrow();
    assertThat(role.getMetadata().getNamespace()).isEqualTo(Charts.NAMESPACE);
    for (String verb : List.of("get", "create", "update")) {
      assertThat(Rbac.grants(role.getRules(), new Permission("coordination.k8s.io", "leases", verb))).isTrue();
    }
    RoleBinding binding = r.of(RoleBinding.class).stream()
        .filter(b -> b.getMetadata().getName().endsWith("-leader-election")).findFirst().orElseThrow();
    assertBound(binding.getRoleRef(), "Role", role.getMetadata().getName());
  }

  @Test
  void badValues_areRefusedWithTheKeyNamed() {
    var zeroReplicas = Charts.template(Charts.OPERATOR, "op").set("replicas", "0");
    assertThat(catchThrowable(zeroReplicas::call)).hasMessageContaining("replicas");
    var typo = Charts.template(Charts.OPERATOR, "op").set("watchNamespace", "x");
    assertThat(catchThrowable(typo::call)).hasMessageContaining("watchNamespace");
  }

  private static void assertBound(RoleRef ref, String kind, String name) {
    assertThat(ref.getApiGroup()).isEqualTo("rbac.authorization.k8s.io");
    assertThat(ref.getKind()).isEqualTo(kind);
    assertThat(ref.getName()).isEqualTo(name);
  }
}
