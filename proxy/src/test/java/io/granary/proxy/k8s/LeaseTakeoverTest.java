package io.granary.proxy.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.granary.clustermap.Node;
import io.granary.clustermap.NodeRole;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.common.control.ControlClient;
import io.granary.common.error.ApiException;
import io.granary.common.error.ConflictException;
import io.granary.common.error.ServiceUnavailableException;
import io.granary.common.membership.ClusterMetadata;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.membership.MetadataFiles;
import io.granary.proxy.membership.ClusterAuthority;
import io.granary.proxy.membership.LeaveGuard;
import io.granary.proxy.membership.MetadataPusher;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Takeover and fencing through the ConfigMap, on fabric8's mock API server in CRUD mode (it checks resourceVersions
 * as the real one does): each primary term resumes from what the last one recorded, one epoch up, and a deposed
 * primary's next write is refused before anything is applied or pushed.
 */
@EnableKubernetesMockClient(crud = true)
class LeaseTakeoverTest {
  private static final String CM = "granary-metadata";

  KubernetesClient client;

  @TempDir
  Path dir;
  private ScheduledExecutorService scheduler;
  private ExecutorService http;

  @BeforeEach
  void setUp() {
    scheduler = Executors.newSingleThreadScheduledExecutor();
    http = Executors.newFixedThreadPool(1);
  }

  @AfterEach
  void tearDown() {
    scheduler.shutdownNow();
    http.shutdownNow();
  }

  /** One proxy's pieces for one term: its holder on disk, a store and an authority. */
  private final class Proxy {
    final Node self;
    final ClusterMetadataHolder holder;
    final AtomicInteger conflicts = new AtomicInteger();
    ConfigMapMetadataStore store;
    ClusterAuthority authority;

    Proxy(String id) throws IOException {
      self = new Node(id, NodeRole.PROXY, "http://127.0.0.1:1/" + id, NodeState.ACTIVE, 1);
      Path d = Files.createDirectories(dir.resolve(id));
      holder = new ClusterMetadataHolder(id, new MetadataFiles(List.of(d)));
    }

    ClusterMetadata takeOver() {
      store = new ConfigMapMetadataStore(client, "test", CM, self.url(), conflicts::incrementAndGet);
      MetadataPusher pusher = new MetadataPusher(self.id(), new ControlClient(Duration.ofMillis(500), http), scheduler);
      authority = new ClusterAuthority(holder, pusher, Clock.systemUTC(), LeaveGuard.NONE, store);
      return authority.takeOver(self, store.load().map(ConfigMapMetadataStore.Recorded::metadata).orElse(null));
    }
  }

  private ConfigMapMetadataStore.Recorded recorded() {
    return ConfigMapMetadataStore.read(client, "test", CM).orElseThrow();
  }

  @Test
  void firstPrimary_createsTheClusterAtEpochOne_andRecordsEveryChangeBeforeApplyingIt() throws Exception {
    Proxy p1 = new Proxy("p1");
    ClusterMetadata first = p1.takeOver();
    assertThat(first.map().epoch()).isEqualTo(1);
    assertThat(first.map().primary()).isEqualTo("p1");
    assertThat(recorded().metadata()).isEqualTo(first);
    assertThat(recorded().primaryUrl()).isEqualTo(p1.self.url());

    ClusterMetadata md = p1.authority.createBucket(Bucket.local("bkt1"), ChecksumType.XXHASH64);
    assertThat(recorded().metadata()).isEqualTo(md);
    assertThat(p1.holder.require().metadata()).isEqualTo(md);
  }

  @Test
  void nextPrimary_resumesFromTheRecord_oneEpochUp_andTheDeposedOnesWriteIsRefusedAndChangesNothing()
      throws Exception {
    Proxy p1 = new Proxy("p1");
    p1.takeOver();
    ClusterMetadata last = p1.authority.createBucket(Bucket.local("bkt1"), ChecksumType.XXHASH64);

    Proxy p2 = new Proxy("p2"); // an empty data directory: all it knows comes from the ConfigMap
    ClusterMetadata resumed = p2.takeOver();
    assertThat(resumed.map().epoch()).isEqualTo(2);
    assertThat(resumed.map().primary()).isEqualTo("p2");
    assertThat(resumed.map().uuid()).isEqualTo(last.map().uuid());
    assertThat(resumed.map().version()).as("the map version continues").isEqualTo(last.map().version() + 1);
    assertThat(resumed.buckets()).as("bucket metadata continues").isEqualTo(last.buckets());
    assertThat(resumed.map().proxies()).containsKeys("p1", "p2");

    // p1 still believes it is the primary (paused while p2 took the Lease): its next write conflicts.
    assertThatThrownBy(() -> p1.authority.createBucket(Bucket.local("bkt2"), ChecksumType.XXHASH64))
        .isInstanceOf(ServiceUnavailableException.class)
        .satisfies(e -> assertThat(((ApiException) e).code()).isEqualTo(ServiceUnavailableException.NOT_PRIMARY));
    assertThat(p1.conflicts).hasValue(1);
    assertThat(p1.authority.fenced()).isTrue();
    assertThat(recorded().metadata()).as("the record is p2's").isEqualTo(resumed);
    assertThat(p1.holder.require().metadata()).as("p1 applied nothing").isEqualTo(last);
    assertThatThrownBy(() -> p1.authority.createBucket(Bucket.local("bkt3"), ChecksumType.XXHASH64))
        .as("fenced: refused without asking the API server").isInstanceOf(ServiceUnavailableException.class);
    assertThat(p1.conflicts).hasValue(1);

    // p2 goes on where p1 stopped.
    ClusterMetadata next = p2.authority.createBucket(Bucket.local("bkt2"), ChecksumType.XXHASH64);
    assertThat(next.buckets().version()).isEqualTo(last.buckets().version() + 1);
    assertThat(recorded().metadata()).isEqualTo(next);
  }

  @Test
  void nodes_followTheNewEpoch_andRefuseTheDeposedPrimarysOlderOne() throws Exception {
    Proxy p1 = new Proxy("p1");
    ClusterMetadata old = p1.takeOver();
    Proxy p2 = new Proxy("p2");
    ClusterMetadata resumed = p2.takeOver();
    ClusterMetadataHolder node = new ClusterMetadataHolder("t1",
        new MetadataFiles(List.of(Files.createDirectories(dir.resolve("t1")))));
    node.apply(old);

    assertThat(node.apply(resumed)).isTrue();
    // Whatever version a deposed primary pushes, its epoch is older.
    ClusterMetadata stale = new ClusterMetadata(old.map().withNode(p1.self).withNode(p1.self).withNode(p1.self),
        old.buckets());
    assertThat(stale.map().version()).isGreaterThan(resumed.map().version());
    assertThatThrownBy(() -> node.apply(stale)).isInstanceOf(ConflictException.class)
        .satisfies(e -> assertThat(((ApiException) e).code()).isEqualTo(ConflictException.STALE_EPOCH));
    assertThat(node.require().metadata()).isEqualTo(resumed);
  }

  @Test
  void aTakeoverThatLosesTheRaceForTheRecord_isRefused() throws Exception {
    Proxy p1 = new Proxy("p1");
    p1.takeOver();
    Proxy p2 = new Proxy("p2");
    Proxy p3 = new Proxy("p3");
    // Both read the same record, p3 writes first: p2's takeover must not overwrite it.
    p2.store = new ConfigMapMetadataStore(client, "test", CM, p2.self.url(), p2.conflicts::incrementAndGet);
    ClusterMetadata seenByP2 = p2.store.load().orElseThrow().metadata();
    ClusterMetadata p3Term = p3.takeOver();
    p2.authority = new ClusterAuthority(p2.holder,
        new MetadataPusher("p2", new ControlClient(Duration.ofMillis(500), http), scheduler), Clock.systemUTC(),
        LeaveGuard.NONE, p2.store);

    assertThatThrownBy(() -> p2.authority.takeOver(p2.self, seenByP2))
        .isInstanceOf(ServiceUnavailableException.class);
    assertThat(recorded().metadata()).isEqualTo(p3Term);
    assertThat(p2.holder.snapshot()).isEmpty();
  }
}
