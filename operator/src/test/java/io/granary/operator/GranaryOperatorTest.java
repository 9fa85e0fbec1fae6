package io.granary.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.granary.operator.customresource.GranaryCluster;
import io.granary.operator.customresource.GranaryClusterStatus;
import io.granary.operator.resources.ClusterSecret;
import io.granary.operator.resources.Labels;
import io.granary.operator.resources.Role;
import io.javaoperatorsdk.operator.Operator;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The real JOSDK operator against fabric8's mock API server (CRUD mode, no server-side apply), with a cluster whose
 * proxies do not answer: what the operator does before and without the cluster API. Scaling through a real
 * cluster is OperatorIT in integration-tests.
 */
@EnableKubernetesMockClient(crud = true)
class GranaryOperatorTest {
  static final String NS = "ns1";
  static KubernetesClient client;

  private Operator operator;

  @BeforeAll
  static void patience() {
    // How long to wait for the operator to act (its start takes seconds on a busy machine); not a timing assertion.
    Awaitility.setDefaultTimeout(Duration.ofSeconds(60));
  }

  @BeforeEach
  void start() {
    if (client.apiextensions().v1().customResourceDefinitions().withName("granaryclusters.granary.io").get() == null) {
      client.apiextensions().v1().customResourceDefinitions()
          .load(GranaryOperatorTest.class.getResourceAsStream("/META-INF/fabric8/granaryclusters.granary.io-v1.yml"))
          .create();
    }
    operator = GranaryOperator.start(client, new UnreachableCluster(), Set.of());
  }

  @AfterEach
  void stop() {
    operator.stop();
  }

  @Test
  void create_makesEveryOwnedObjectAndReportsStatus() {
    GranaryCluster c = client.resource(Fixtures.cluster("create", NS, 3)).create();

    StatefulSet targets = await().until(() -> sts("create-target"), s -> s != null);
    assertThat(targets.getSpec().getReplicas()).isEqualTo(3);
    assertThat(sts("create-proxy").getSpec().getReplicas()).isEqualTo(1);
    List<HasMetadata> owned = List.of(
        client.services().inNamespace(NS).withName("create-proxy").get(),
        client.services().inNamespace(NS).withName("create-target").get(),
        client.services().inNamespace(NS).withName("create-s3").get(),
        client.configMaps().inNamespace(NS).withName("create-config").get(),
        client.secrets().inNamespace(NS).withName("create-cluster").get(),
        client.policy().v1().podDisruptionBudget().inNamespace(NS).withName("create-target").get(),
        client.serviceAccounts().inNamespace(NS).withName("create-node").get(),
        client.rbac().roles().inNamespace(NS).withName("create-node").get(),
        client.rbac().roleBindings().inNamespace(NS).withName("create-node").get(),
        targets);
    String uid = client.resource(c).get().getMetadata().getUid();
    assertThat(owned).allSatisfy(o -> assertThat(o.getMetadata().getOwnerReferences()).singleElement()
        .satisfies(r -> assertThat(r.getUid()).isEqualTo(uid)));

    GranaryClusterStatus s = await().until(() -> status("create"), st -> st != null && st.phase != null);
    assertThat(s.phase).isEqualTo("Creating");
    assertThat(s.endpoint).isEqualTo("http://create-s3.ns1.svc:80");
    assertThat(s.observedGeneration).isEqualTo(client.resource(c).get().getMetadata().getGeneration());
    assertThat(condition(s, "SpecValid")).hasValueSatisfying(x -> assertThat(x.getStatus()).isEqualTo("True"));
    assertThat(condition(s, "ClusterReachable")).hasValueSatisfying(x -> assertThat(x.getStatus()).isEqualTo("False"));
  }

  @Test
  void specChange_updatesObjects_butNeverTheClusterSecret() {
    client.resource(Fixtures.cluster("secret", NS, 3)).create();
    await().until(() -> client.secrets().inNamespace(NS).withName("secret-cluster").get() != null);
    String secret = secretValue("secret-cluster");

    edit("secret", c -> c.getSpec().config.put("rebalance-bandwidth", "64MiB"));

    await().untilAsserted(() -> assertThat(client.configMaps().inNamespace(NS).withName("secret-config").get()
        .getData().get("granary.yaml")).contains("rebalance-bandwidth: \"64MiB\""));
    assertThat(secretValue("secret-cluster")).isEqualTo(secret);
  }

  @Test
  void imageChange_rollsTheStatefulSetsAndSaysSoUntilDone() {
    client.resource(Fixtures.cluster("img", NS, 2)).create();
    await().until(() -> sts("img-target") != null);

    edit("img", c -> c.getSpec().image = "granary:next");

    await().untilAsserted(() -> {
      assertThat(sts("img-target").getSpec().getTemplate().getSpec().getContainers().get(0).getImage())
          .isEqualTo("granary:next");
      assertThat(sts("img-proxy").getSpec().getTemplate().getSpec().getContainers().get(0).getImage())
          .isEqualTo("granary:next");
    });
    // The StatefulSet controller's part, which the mock server does not play: a rollout in progress, then done.
    setStatus("img-target", 2, "rev-1", "rev-2");
    await().untilAsserted(() -> {
      assertThat(status("img").phase).isEqualTo("Upgrading");
      assertThat(condition(status("img"), "Upgraded")).hasValueSatisfying(
          x -> assertThat(x.getReason()).isEqualTo("RollingUpdate"));
    });
    setStatus("img-target", 2, "rev-2", "rev-2");
    setStatus("img-proxy", 1, "rev-2", "rev-2");
    await().untilAsserted(() -> {
      assertThat(status("img").readyTargets).isEqualTo(2);
      assertThat(condition(status("img"), "Upgraded")).hasValueSatisfying(
          x -> assertThat(x.getStatus()).isEqualTo("True"));
    });
  }

  @Test
  void badSpec_isReportedInStatus_changesNothing_andAFixIsPickedUp() {
    GranaryCluster bad = Fixtures.cluster("bad", NS, 3);
    bad.getSpec().target.replicas = 0;
    bad.getSpec().target.mountpaths.get(0).size = "ten gigs";
    client.resource(bad).create();

    await().untilAsserted(() -> {
      GranaryClusterStatus s = status("bad");
      assertThat(s).isNotNull();
      assertThat(s.phase).isEqualTo("Invalid");
      assertThat(condition(s, "SpecValid")).hasValueSatisfying(x -> {
        assertThat(x.getStatus()).isEqualTo("False");
        assertThat(x.getMessage()).contains("spec.target.replicas must be at least 1").contains("ten gigs");
      });
    });
    assertThat(sts("bad-target")).isNull();
    assertThat(sts("bad-proxy")).isNull();

    edit("bad", c -> {
      c.getSpec().target.replicas = 3;
      c.getSpec().target.mountpaths.get(0).size = "10Gi";
    });

    await().untilAsserted(() -> assertThat(sts("bad-target")).isNotNull());
    await().untilAsserted(() -> assertThat(condition(status("bad"), "SpecValid"))
        .hasValueSatisfying(x -> assertThat(x.getStatus()).isEqualTo("True")));
  }

  @Test
  void scaleDown_withoutTheClusterApi_removesNoTarget() {
    client.resource(Fixtures.cluster("safe", NS, 3)).create();
    await().until(() -> sts("safe-target") != null);

    edit("safe", c -> c.getSpec().target.replicas = 2);

    await().untilAsserted(() -> {
      GranaryClusterStatus s = status("safe");
      assertThat(s.phase).isEqualTo("ScalingDown");
      assertThat(condition(s, "ScaleDownBlocked")).hasValueSatisfying(x -> {
        assertThat(x.getStatus()).isEqualTo("True");
        assertThat(x.getObservedGeneration()).isEqualTo(2L);
      });
    });
    assertThat(sts("safe-target").getSpec().getReplicas()).isEqualTo(3);
  }

  @Test
  void scaleUp_raisesTheTargetsAtOnce() {
    client.resource(Fixtures.cluster("up", NS, 3)).create();
    await().until(() -> sts("up-target") != null);

    edit("up", c -> c.getSpec().target.replicas = 5);

    await().untilAsserted(() -> assertThat(sts("up-target").getSpec().getReplicas()).isEqualTo(5));
  }

  @Test
  void delete_removesTheFinalizer_andKeepsTheVolumes() {
    client.resource(Fixtures.cluster("keep", NS, 3)).create();
    await().until(() -> finalizers("keep").size() == 1);
    PersistentVolumeClaim pvc = client.resource(claim("keep")).create();

    client.resources(GranaryCluster.class).inNamespace(NS).withName("keep").delete();

    await().until(() -> client.resources(GranaryCluster.class).inNamespace(NS).withName("keep").get() == null);
    assertThat(client.resource(pvc).get()).isNotNull();
  }

  @Test
  void delete_withDeleteVolumes_deletesTheTargetVolumes() {
    GranaryCluster c = Fixtures.cluster("drop", NS, 3);
    c.getSpec().deleteVolumes = true;
    client.resource(c).create();
    await().until(() -> finalizers("drop").size() == 1);
    PersistentVolumeClaim pvc = client.resource(claim("drop")).create();

    client.resources(GranaryCluster.class).inNamespace(NS).withName("drop").delete();

    await().until(() -> client.resources(GranaryCluster.class).inNamespace(NS).withName("drop").get() == null);
    await().until(() -> client.resource(pvc).get() == null);
  }

  /** A claim as the StatefulSet controller makes from a volumeClaimTemplate. */
  private static PersistentVolumeClaim claim(String cluster) {
    GranaryCluster c = Fixtures.cluster(cluster, NS, 3);
    return new PersistentVolumeClaimBuilder().withNewMetadata().withName("d1-" + cluster + "-target-0")
        .withNamespace(NS).withLabels(Labels.of(c, Role.TARGET)).endMetadata()
        .withNewSpec().withAccessModes("ReadWriteOnce").endSpec().build();
  }

  private static List<String> finalizers(String name) {
    GranaryCluster c = client.resources(GranaryCluster.class).inNamespace(NS).withName(name).get();
    return c == null ? List.of() : c.getMetadata().getFinalizers();
  }

  private static StatefulSet sts(String name) {
    return client.apps().statefulSets().inNamespace(NS).withName(name).get();
  }

  private static void setStatus(String name, int ready, String current, String update) {
    StatefulSet s = sts(name);
    s.setStatus(new StatefulSetStatusBuilder().withReplicas(ready).withReadyReplicas(ready)
        .withCurrentRevision(current).withUpdateRevision(update).build());
    client.resource(s).updateStatus();
  }

  private static GranaryClusterStatus status(String name) {
    GranaryCluster c = client.resources(GranaryCluster.class).inNamespace(NS).withName(name).get();
    return c == null ? null : c.getStatus();
  }

  private static Optional<Condition> condition(GranaryClusterStatus s, String type) {
    return s.conditions.stream().filter(c -> c.getType().equals(type)).findFirst();
  }

  /**
   * Changes the spec as a user's edit does: read, change, write back. The operator may update the resource's status
   * between the read and the write (409 Conflict, the resource version moved on); the edit is then made again on the
   * newer version, as kubectl does.
   */
  private static void edit(String name, java.util.function.Consumer<GranaryCluster> change) {
    for (int attempt = 1; ; attempt++) {
      try {
        client.resources(GranaryCluster.class).inNamespace(NS).withName(name).edit(c -> {
          change.accept(c);
          return c;
        });
        return;
      } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
        if (e.getCode() != 409 || attempt == 10) {
          throw e;
        }
      }
    }
  }

  private static String secretValue(String name) {
    var s = client.secrets().inNamespace(NS).withName(name).get();
    return s.getData() != null && s.getData().get(ClusterSecret.KEY) != null ? s.getData().get(ClusterSecret.KEY)
        : s.getStringData().get(ClusterSecret.KEY);
  }
}
