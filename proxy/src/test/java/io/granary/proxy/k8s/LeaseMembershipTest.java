package io.granary.proxy.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.granary.clustermap.Node;
import io.granary.clustermap.NodeRole;
import io.granary.clustermap.NodeState;
import io.granary.common.control.ControlClient;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.membership.MetadataFiles;
import io.granary.proxy.membership.ClusterAuthority;
import io.granary.proxy.membership.LeaveGuard;
import io.granary.proxy.membership.MetadataPusher;
import io.granary.proxy.membership.PrimaryRole;
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
 * The election wiring on fabric8's mock API server: two proxies stand for one Lease, exactly one becomes primary
 * and records itself; when it leaves (releasing the Lease) the other takes over one epoch up, and follows no one.
 */
@EnableKubernetesMockClient(crud = true)
class LeaseMembershipTest {
  KubernetesClient client;

  @TempDir
  Path dir;
  private ScheduledExecutorService scheduler;
  private ExecutorService http;

  @BeforeEach
  void setUp() {
    scheduler = Executors.newScheduledThreadPool(2);
    http = Executors.newFixedThreadPool(2);
  }

  @AfterEach
  void tearDown() {
    scheduler.shutdownNow();
    http.shutdownNow();
  }

  /** A proxy's membership with the real authority, and duties that only count their terms. */
  private record Candidate(LeaseMembership membership, PrimaryRole role, ClusterMetadataHolder holder,
      AtomicInteger terms) {
  }

  private Candidate candidate(String id) throws Exception {
    ClusterMetadataHolder holder = new ClusterMetadataHolder(id,
        new MetadataFiles(List.of(Files.createDirectories(dir.resolve(id)))));
    PrimaryRole role = PrimaryRole.elected(holder);
    ControlClient control = new ControlClient(Duration.ofMillis(500), http);
    AtomicInteger terms = new AtomicInteger();
    LeaseMembership m = new LeaseMembership(client, new LeaseSettings("granary", "test", Duration.ofSeconds(2)),
        holder, role, new Node(id, NodeRole.PROXY, "http://127.0.0.1:1/" + id, NodeState.ACTIVE, 1), control,
        scheduler, new LeaseMembership.Terms() {
          @Override
          public ClusterAuthority authority(MetadataPusher pusher, ConfigMapMetadataStore store) {
            return new ClusterAuthority(holder, pusher, Clock.systemUTC(), LeaveGuard.NONE, store);
          }

          @Override
          public AutoCloseable duties(ClusterAuthority authority) {
            terms.incrementAndGet();
            return () -> { };
          }
        }, reason -> { throw new AssertionError("fatal: " + reason); });
    return new Candidate(m, role, holder, terms);
  }

  private String leaseHolder() {
    Lease l = client.resources(Lease.class).inNamespace("test").withName("granary").get();
    return l == null ? null : l.getSpec().getHolderIdentity();
  }

  @Test
  void oneOfTwoIsPrimary_andWhenItLeavesTheOtherTakesOverOneEpochUp() throws Exception {
    Candidate a = candidate("pa");
    Candidate b = candidate("pb");
    a.membership().start();
    b.membership().start();

    // A candidate is primary once it has won the Lease; its record of the takeover may land a moment later.
    await("a primary, recorded").atMost(Duration.ofSeconds(30)).until(() -> (a.role().primary()
        || b.role().primary()) && ConfigMapMetadataStore.read(client, "test", "granary-metadata")
            .filter(r -> r.primaryId() != null).isPresent());
    Candidate first = a.role().primary() ? a : b;
    Candidate other = first == a ? b : a;
    assertThat(other.role().primary()).isFalse();
    assertThat(leaseHolder()).isEqualTo(first.holder().nodeId());
    var rec = ConfigMapMetadataStore.read(client, "test", "granary-metadata").orElseThrow();
    assertThat(rec.primaryId()).isEqualTo(first.holder().nodeId());
    assertThat(rec.metadata().map().epoch()).isEqualTo(1);
    await("the follower learns where the primary is").atMost(Duration.ofSeconds(30))
        .until(() -> rec.primaryUrl().equals(other.role().primaryUrl()));

    first.membership().close(); // releases the Lease
    await("the other takes over and records it").atMost(Duration.ofSeconds(30)).until(() -> other.role().primary()
        && ConfigMapMetadataStore.read(client, "test", "granary-metadata").orElseThrow().primaryId()
            .equals(other.holder().nodeId()));
    var next = ConfigMapMetadataStore.read(client, "test", "granary-metadata").orElseThrow();
    assertThat(next.primaryId()).isEqualTo(other.holder().nodeId());
    assertThat(next.metadata().map().epoch()).isEqualTo(2);
    assertThat(next.metadata().map().version()).isEqualTo(rec.metadata().map().version() + 1);
    assertThat(other.terms()).hasValue(1);
    assertThat(first.role().primary()).isFalse();
    other.membership().close();
  }
}
