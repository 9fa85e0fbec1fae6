package io.granary.it.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.NodeState;
import io.granary.it.s3.S3Support;
import io.granary.it.support.Content;
import io.granary.it.support.Resources;
import io.granary.it.support.SingleNode;
import io.granary.it.support.TestCluster;
import io.granary.operator.GranaryOperator;
import io.granary.operator.customresource.GranaryCluster;
import io.granary.operator.customresource.GranaryClusterSpec;
import io.granary.operator.customresource.GranaryClusterStatus;
import io.granary.operator.customresource.Mountpath;
import io.javaoperatorsdk.operator.Operator;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The operator scaling a real cluster. The Kubernetes side is fabric8's mock API server (CRUD mode, no server-side
 * apply) with the real JOSDK operator; the cluster side is a real local cluster (1 proxy, 3 targets, signed native
 * API) that the test runs as the pods, playing the kubelet: it starts a target when the target StatefulSet grows
 * and stops one when it shrinks. Scaling up must end with the rebalance finished in the status; scaling down must
 * decommission each target and wait until it is drained before its pod goes, losing no object; a proxy scaled
 * away must leave the map once its pod stopped (the test runs a second proxy process as proxy pod 1).
 */
@EnableKubernetesMockClient(crud = true)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OperatorIT {
  private static final String NS = "storage";
  private static final String NAME = "gc";
  private static final String BUCKET = "train";
  private static final int OBJECTS = 300;

  static KubernetesClient client;
  private static TestCluster cluster;
  private static S3Client s3;
  private static Operator operator;
  /** Target pods removed while their target was still in the cluster map: must stay empty. */
  private static final List<String> unsafeRemovals = new CopyOnWriteArrayList<>();
  private static Watch stsWatch;

  @BeforeAll
  static void start() throws Exception {
    Awaitility.setDefaultTimeout(Duration.ofMinutes(3)); // how long a rebalance may take here, not an assertion
    // A slow rebalance (128 KiB/s per sender), so a decommissioned target drains over seconds of operator polls.
    cluster = TestCluster.start("operator", 3, List.of(), List.of("--health-interval", "1s", "--offline-after", "4s"),
        true, List.of("--rebalance-bandwidth", "128KiB"));
    s3 = S3Support.sync(cluster);
    s3.createBucket(b -> b.bucket(BUCKET));
    for (int i = 0; i < OBJECTS; i++) {
      int k = i;
      s3.putObject(b -> b.bucket(BUCKET).key("o/" + k), RequestBody.fromBytes(Content.bytes(k, 1000 + 37 * k)));
    }
    client.apiextensions().v1().customResourceDefinitions()
        .load(GranaryOperator.class.getResourceAsStream("/META-INF/fabric8/granaryclusters.granary.io-v1.yml"))
        .create();
    client.resource(new SecretBuilder().withMetadata(new ObjectMetaBuilder().withName("s3-keys").withNamespace(NS)
        .build()).withStringData(Map.of("access-key", cluster.credentials().accessKey(),
            "secret-key", cluster.credentials().secretKey())).build()).create();
    operator = GranaryOperator.start(client, new LocalClusterLocator(cluster), Set.of());
    stsWatch = client.apps().statefulSets().inNamespace(NS).withName(NAME + "-target").watch(new SafetyCheck());
  }

  @AfterAll
  static void stop() {
    if (stsWatch != null) {
      stsWatch.close();
    }
    if (operator != null) {
      operator.stop();
    }
    Resources.closeAll(s3, cluster);
  }

  @Test
  @Order(1)
  void create_findsTheClusterAndReportsItSettled() {
    client.resource(resource(3)).create();

    await().until(() -> sts(NAME + "-target") != null);
    kubeletReady(3);
    await().untilAsserted(() -> {
      GranaryClusterStatus s = status();
      assertThat(s.phase).isEqualTo("Running");
      assertThat(s.readyTargets).isEqualTo(3);
      assertThat(s.mapVersion).isEqualTo(cluster.map().version());
      assertThat(condition(s, "ClusterReachable").getStatus()).isEqualTo("True");
      assertThat(condition(s, "Rebalanced").getStatus()).isEqualTo("True");
    });
  }

  @Test
  @Order(2)
  void scaleUp_newTargetJoins_statusSaysWhenTheRebalanceFinished() throws Exception {
    long before = cluster.map().version();
    edit(c -> c.getSpec().target.replicas = 4);

    await().untilAsserted(() -> assertThat(sts(NAME + "-target").getSpec().getReplicas()).isEqualTo(4));
    await().untilAsserted(() -> assertThat(status().phase).isEqualTo("ScalingUp"));
    String added = cluster.local().addTarget(List.of()); // the kubelet starts pod 3
    assertThat(added).isEqualTo(LocalClusterLocator.localId(3));
    kubeletReady(4);

    await().untilAsserted(() -> {
      GranaryClusterStatus s = status();
      assertThat(s.phase).isEqualTo("Running");
      assertThat(condition(s, "Rebalanced").getReason()).isEqualTo("RebalanceFinished");
      assertThat(s.mapVersion).isGreaterThan(before);
    });
    ClusterMap map = cluster.map();
    assertThat(map.targets().get(added).state()).isEqualTo(NodeState.ACTIVE);
    assertThat(map.settled()).isTrue();
    assertThat(status().rebalance).isEqualTo("finished");
    assertEveryObjectReads();
  }

  @Test
  @Order(3)
  void scaleDown_decommissionsEachTargetAndRemovesItsPodOnlyOnceDrained() throws Exception {
    edit(c -> c.getSpec().target.replicas = 2);

    await().untilAsserted(() -> assertThat(sts(NAME + "-target").getSpec().getReplicas()).isEqualTo(2));
    kubeletReady(2); // the StatefulSet controller reports the two pods left
    await().untilAsserted(() -> assertThat(status().phase).isEqualTo("Running"));

    ClusterMap map = cluster.map();
    assertThat(map.targets()).containsOnlyKeys("t1", "t2");
    assertThat(map.retired()).contains("t3", "t4");
    assertThat(unsafeRemovals).isEmpty();
    assertThat(condition(status(), "ScaleDownBlocked").getStatus()).isEqualTo("False");
    assertEveryObjectReads();
  }

  @Test
  @Order(4)
  void proxyScaleDown_removedProxyLeavesTheMapOnceItsPodStopped_andMayComeBack() throws Exception {
    try (SingleNode p2 = twoProxies()) {
      edit(c -> c.getSpec().proxy.replicas = 1);
      await().untilAsserted(() -> assertThat(sts(NAME + "-proxy").getSpec().getReplicas()).isEqualTo(1));
      // Its pod still runs (terminating, finishing requests): the operator waits, and says so.
      await().untilAsserted(() -> {
        GranaryClusterStatus s = status();
        assertThat(s.phase).isEqualTo("ScalingDown");
        assertThat(condition(s, "ScaleDownBlocked").getMessage()).contains("p2");
      });
      assertThat(cluster.map().proxies()).containsKey("p2");
    } // the kubelet stops pod 1
    kubeletReady(1, 2);

    await().untilAsserted(() -> {
      assertThat(cluster.map().proxies()).containsOnlyKeys("p1");
      assertThat(status().phase).isEqualTo("Running");
    });
    assertThat(cluster.map().retired()).as("a proxy held no data: its ordinal may come back").doesNotContain("p2");
    assertEveryObjectReads();

    // Scaled up again, the pod at that ordinal joins under the same id.
    try (SingleNode p2 = twoProxies()) {
      edit(c -> c.getSpec().proxy.replicas = 1);
      await().untilAsserted(() -> assertThat(sts(NAME + "-proxy").getSpec().getReplicas()).isEqualTo(1));
    }
    kubeletReady(1, 2);
    await().untilAsserted(() -> assertThat(cluster.map().proxies()).containsOnlyKeys("p1"));
  }

  /** Scales proxies to 2: the kubelet starts proxy pod 1 (p2), which joins; returns once the cluster is Running. */
  private static SingleNode twoProxies() throws Exception {
    edit(c -> c.getSpec().proxy.replicas = 2);
    await().untilAsserted(() -> assertThat(sts(NAME + "-proxy").getSpec().getReplicas()).isEqualTo(2));
    SingleNode p2 = startProxy("p2");
    try {
      await().until(() -> cluster.map().proxies().containsKey("p2")
          && cluster.map().proxies().get("p2").state() == NodeState.ACTIVE);
      kubeletReady(2, 2);
      await().untilAsserted(() -> assertThat(status().phase).isEqualTo("Running"));
      return p2;
    } catch (Exception | AssertionError e) {
      p2.close();
      throw e;
    }
  }

  /** A non-primary proxy joined to the cluster, as proxy pod I = p(I+1) would be. */
  private static SingleNode startProxy(String id) throws Exception {
    int port = TestCluster.freePortRange(1);
    return SingleNode.start(port, cluster.dir().resolve("logs/" + id + ".log"),
        List.of("proxy", "--id", id, "--data", cluster.dir().resolve(id).toString(), "--primary", cluster.endpoint(),
            "--native-auth=true"),
        Map.of("GRANARY_CLUSTER_SECRET", cluster.local().clusterSecret(),
            "GRANARY_ACCESS_KEY", cluster.credentials().accessKey(),
            "GRANARY_SECRET_KEY", cluster.credentials().secretKey()));
  }

  @Test
  @Order(5)
  void scaleDown_ofATargetThatIsDown_waitsForItAndKeepsItsPod() throws Exception {
    cluster.local().kill("t2"); // pod 1 crashed: its objects are on its disks only
    await().until(() -> cluster.map().targets().get("t2").state() == NodeState.OFFLINE);

    edit(c -> c.getSpec().target.replicas = 1);

    await().untilAsserted(() -> {
      GranaryClusterStatus s = status();
      assertThat(s.phase).isEqualTo("ScalingDown");
      Condition blocked = condition(s, "ScaleDownBlocked");
      assertThat(blocked.getStatus()).isEqualTo("True");
      assertThat(blocked.getMessage()).contains("t2").contains("offline");
    });
    assertThat(sts(NAME + "-target").getSpec().getReplicas()).isEqualTo(2);
    assertThat(cluster.map().targets().get("t2").state()).isEqualTo(NodeState.OFFLINE); // not decommissioned
    assertThat(unsafeRemovals).isEmpty();
  }

  @Test
  @Order(6)
  void delete_removesTheResourceAndLeavesTheClusterRunning() throws Exception {
    client.resources(GranaryCluster.class).inNamespace(NS).withName(NAME).delete();

    await().until(() -> client.resources(GranaryCluster.class).inNamespace(NS).withName(NAME).get() == null);
    assertThat(cluster.map().targets()).containsOnlyKeys("t1", "t2");
  }

  /**
   * Plays the kubelet for a shrinking target StatefulSet, and checks the operator's promise on the way: a pod goes
   * only after its target left the map (drained). The stopped process is the pod going away.
   */
  private static final class SafetyCheck implements Watcher<StatefulSet> {
    private int last = -1;

    @Override
    public void eventReceived(Action action, StatefulSet s) {
      int replicas = s.getSpec().getReplicas();
      try {
        for (int ordinal = replicas; ordinal < last; ordinal++) {
          String id = LocalClusterLocator.localId(ordinal);
          if (cluster.map().targets().containsKey(id)) {
            unsafeRemovals.add(id + " removed at replicas " + replicas);
          }
          if (cluster.local().targetIds().contains(id)) {
            cluster.local().kill(id);
          }
        }
      } catch (Exception e) {
        unsafeRemovals.add("check failed: " + e);
      }
      last = replicas;
    }

    @Override
    public void onClose(WatcherException cause) {
    }
  }

  private static void assertEveryObjectReads() {
    for (int i = 0; i < OBJECTS; i++) {
      int k = i;
      byte[] got = s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("o/" + k)).asByteArray();
      assertThat(got).as("o/" + k).isEqualTo(Content.bytes(k, 1000 + 37 * k));
    }
  }

  private static GranaryCluster resource(int targets) {
    GranaryCluster c = new GranaryCluster();
    c.setMetadata(new ObjectMetaBuilder().withName(NAME).withNamespace(NS).build());
    GranaryClusterSpec s = new GranaryClusterSpec();
    s.image = "granary:it";
    s.authSecret = "s3-keys";
    s.target.replicas = targets;
    Mountpath m = new Mountpath();
    m.name = "d1";
    m.size = "10Gi";
    s.target.mountpaths.add(m);
    c.setSpec(s);
    return c;
  }

  /** The kubelet's and StatefulSet controller's part: every pod of both sets running and ready. */
  private static void kubeletReady(int targets) {
    kubeletReady(1, targets);
  }

  private static void kubeletReady(int proxies, int targets) {
    for (var e : Map.of(NAME + "-proxy", proxies, NAME + "-target", targets).entrySet()) {
      StatefulSet s = sts(e.getKey());
      s.setStatus(new StatefulSetStatusBuilder().withReplicas(e.getValue()).withReadyReplicas(e.getValue())
          .withCurrentRevision("r1").withUpdateRevision("r1").build());
      client.resource(s).updateStatus();
    }
  }

  private static StatefulSet sts(String name) {
    return client.apps().statefulSets().inNamespace(NS).withName(name).get();
  }

  private static GranaryClusterStatus status() {
    GranaryCluster c = client.resources(GranaryCluster.class).inNamespace(NS).withName(NAME).get();
    assertThat(c.getStatus()).as("status").isNotNull();
    return c.getStatus();
  }

  private static Condition condition(GranaryClusterStatus s, String type) {
    Optional<Condition> c = s.conditions.stream().filter(x -> x.getType().equals(type)).findFirst();
    assertThat(c).as("condition " + type).isPresent();
    return c.get();
  }

  /** A user's edit: made again on the newer version when the operator's status update overtook it (409). */
  private static void edit(Consumer<GranaryCluster> change) {
    for (int attempt = 1; ; attempt++) {
      try {
        client.resources(GranaryCluster.class).inNamespace(NS).withName(NAME).edit(c -> {
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
}
