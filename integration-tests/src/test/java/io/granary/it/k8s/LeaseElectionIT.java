package io.granary.it.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.granary.clustermap.ClusterJson;
import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.bucket.Bucket;
import io.granary.it.support.Http;
import io.granary.it.support.SingleNode;
import io.granary.it.support.TestCluster;
import io.granary.proxy.k8s.ConfigMapMetadataStore;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Primary election with a Kubernetes Lease, two real proxy processes and a target, against fabric8's mock API
 * server (CRUD mode) in this JVM, which the proxies reach through KUBERNETES_MASTER like any fabric8 client. Killing
 * the primary (kill -9) hands the Lease to the other proxy, which resumes the metadata from the ConfigMap one epoch
 * up; a primary paused (SIGSTOP) past its Lease cannot write when it resumes, and follows the new one.
 */
class LeaseElectionIT {
  private static final Path DIR = Path.of(System.getProperty("granary.it.dir", "target/it-data"))
      .resolve("lease-election");
  private static final String NS = "granary";
  private static final String LEASE = "granary";
  private static final String CM = LEASE + "-metadata";

  private KubernetesMockServer api;
  private KubernetesClient kube;
  private final List<SingleNode> nodes = new ArrayList<>();
  private final List<Long> paused = new ArrayList<>();

  @BeforeEach
  void startApiServer() throws IOException {
    deleteTree(DIR);
    api = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
        new KubernetesCrudDispatcher(List.of()), false);
    api.init(InetAddress.getLoopbackAddress(), 0);
    kube = api.createClient();
  }

  @AfterEach
  void stop() throws Exception {
    for (long pid : paused) {
      signal("CONT", pid);
    }
    for (SingleNode n : nodes) {
      n.close();
    }
    kube.close();
    api.destroy();
  }

  private Map<String, String> kubeEnv() {
    return Map.of("KUBERNETES_MASTER", "http://127.0.0.1:" + api.getPort(),
        "KUBERNETES_AUTH_TRYKUBECONFIG", "false", "KUBERNETES_AUTH_TRYSERVICEACCOUNT", "false",
        "KUBERNETES_NAMESPACE", NS);
  }

  private SingleNode proxy(String id, int port) throws IOException {
    SingleNode n = SingleNode.start(port, DIR.resolve("logs/" + id + ".log"), List.of("proxy", "--id", id, "--data",
        DIR.resolve(id).toString(), "--anonymous", "--native-auth=false", "--health-interval", "1s",
        "--k8s-lease", LEASE, "--k8s-lease-duration", "3s"), kubeEnv());
    nodes.add(n);
    return n;
  }

  private ConfigMapMetadataStore.Recorded recorded() {
    return ConfigMapMetadataStore.read(kube, NS, CM).orElseThrow();
  }

  private void awaitPrimary(String id) {
    await(id + " is the primary on record").atMost(Duration.ofSeconds(90)).ignoreExceptions()
        .until(() -> id.equals(recorded().primaryId()));
  }

  private static ClusterMap mapOf(SingleNode n) throws Exception {
    return ClusterJson.mapper().readValue(Http.get(n.url() + "/v1/cluster/map").body(), ClusterMap.class);
  }

  private static int createBucket(SingleNode via, String name) throws Exception {
    return Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(via.url() + "/v1/buckets/" + name))
        .POST(HttpRequest.BodyPublishers.noBody())).status();
  }

  private static boolean holds(ConfigMapMetadataStore.Recorded r, String bucket) {
    return r.metadata().buckets().get(Bucket.local(bucket)).isPresent();
  }

  @Test
  void killedPrimary_isReplaced_metadataContinues_andAPausedOneCannotWriteWhenItResumes() throws Exception {
    int port = TestCluster.freePortRange(3);
    SingleNode pa = proxy("pa", port);
    awaitPrimary("pa");
    SingleNode pb = proxy("pb", port + 1);
    SingleNode t1 = SingleNode.start(port + 2, DIR.resolve("logs/t1.log"), List.of("target", "--id", "t1",
        "--mountpath", DIR.resolve("t1/mp1").toString(), "--primary", pa.url()));
    nodes.add(t1);
    await("pb and t1 active, placement settled").atMost(Duration.ofSeconds(90)).ignoreExceptions().until(() -> {
      ClusterMap m = recorded().metadata().map();
      return m.proxies().containsKey("pb") && m.targets().containsKey("t1")
          && m.targets().get("t1").state().wireName().equals("active") && m.settled();
    });
    assertThat(createBucket(pb, "bkt1")).as("created through the follower, by the primary").isEqualTo(201);
    ConfigMapMetadataStore.Recorded before = recorded();
    assertThat(before.metadata().map().epoch()).isEqualTo(1);
    assertThat(holds(before, "bkt1")).isTrue();

    // kill -9 the primary: pb takes the Lease once it expires, and resumes from the record one epoch up.
    pa.process().destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    awaitPrimary("pb");
    ConfigMapMetadataStore.Recorded taken = recorded();
    assertThat(taken.metadata().map().epoch()).isEqualTo(2);
    assertThat(taken.metadata().map().uuid()).isEqualTo(before.metadata().map().uuid());
    assertThat(taken.metadata().map().version()).isGreaterThan(before.metadata().map().version());
    assertThat(taken.metadata().buckets()).isEqualTo(before.metadata().buckets());
    assertThat(taken.primaryUrl()).isEqualTo(pb.url());

    assertThat(createBucket(pb, "bkt2")).isEqualTo(201);
    ConfigMapMetadataStore.Recorded afterCreate = recorded();
    assertThat(afterCreate.metadata().buckets().version()).isEqualTo(before.metadata().buckets().version() + 1);
    assertThat(holds(afterCreate, "bkt1") && holds(afterCreate, "bkt2")).isTrue();
    await("the target follows the new primary").atMost(Duration.ofSeconds(60)).ignoreExceptions()
        .until(() -> mapOf(t1).primary().equals("pb") && mapOf(t1).epoch() == 2);

    // pa comes back (same id and data): it follows pb.
    nodes.remove(pa);
    pa = proxy("pa", port);
    SingleNode paAgain = pa;
    await("the restarted proxy follows pb").atMost(Duration.ofSeconds(90)).ignoreExceptions()
        .until(() -> mapOf(paAgain).primary().equals("pb"));

    // Pause the primary past its Lease: pa takes over (epoch 3) while pb sleeps.
    long pbPid = pb.process().pid();
    signal("STOP", pbPid);
    paused.add(pbPid);
    awaitPrimary("pa");
    assertThat(recorded().metadata().map().epoch()).isEqualTo(3);
    assertThat(createBucket(pa, "bkt3")).isEqualTo(201);

    // A write sent to the paused one: pb reads it once resumed, while it may still believe it is the primary.
    CompletableFuture<HttpResponse<String>> late = Http.NO_FOLLOW.sendAsync(HttpRequest.newBuilder(
        URI.create(pb.url() + "/v1/buckets/bkt4")).timeout(Duration.ofSeconds(120))
        .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    signal("CONT", pbPid);
    paused.remove(pbPid);
    HttpResponse<String> answer = late.get(120, TimeUnit.SECONDS);
    // Either pb still took itself for the primary and its record was refused (503 NotPrimary), or it had stepped
    // down already and forwarded the request to pa (201; 503 PrimaryUnreachable in the instant before it has
    // looked pa up): never a write of pb's.
    assertThat(answer.statusCode()).as(answer.body()).isIn(201, 503);
    assertThat(answer.statusCode() == 201 || answer.body().contains("NotPrimary")
        || answer.body().contains("PrimaryUnreachable")).as(answer.body()).isTrue();
    await("pb steps down and follows pa").atMost(Duration.ofSeconds(60)).ignoreExceptions()
        .until(() -> mapOf(pb).primary().equals("pa") && mapOf(pb).epoch() == 3);
    assertThat(Files.readString(pb.log())).contains("stepped down as primary");
    ConfigMapMetadataStore.Recorded last = recorded();
    assertThat(last.primaryId()).isEqualTo("pa");
    assertThat(last.metadata().map().epoch()).isEqualTo(3);
    assertThat(holds(last, "bkt4")).as("bkt4 exists exactly when the write was answered 201")
        .isEqualTo(answer.statusCode() == 201);

    // pb now forwards, and the metadata goes on from pa's last version.
    long bucketsBefore = recorded().metadata().buckets().version();
    assertThat(createBucket(pb, "bkt5")).isEqualTo(201);
    assertThat(recorded().metadata().buckets().version()).isEqualTo(bucketsBefore + 1);
    assertThat(holds(recorded(), "bkt1") && holds(recorded(), "bkt2") && holds(recorded(), "bkt3")
        && holds(recorded(), "bkt5")).isTrue();
  }

  private static void signal(String sig, long pid) throws Exception {
    Process k = new ProcessBuilder("kill", "-" + sig, String.valueOf(pid)).inheritIO().start();
    assertThat(k.waitFor(10, TimeUnit.SECONDS)).isTrue();
  }

  private static void deleteTree(Path root) throws IOException {
    if (Files.exists(root)) {
      try (var walk = Files.walk(root)) {
        for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
          Files.delete(p);
        }
      }
    }
  }
}
