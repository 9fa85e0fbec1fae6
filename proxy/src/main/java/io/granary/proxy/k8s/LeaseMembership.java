package io.granary.proxy.k8s;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.granary.clustermap.Node;
import io.granary.clustermap.NodeRole;
import io.granary.common.control.ControlClient;
import io.granary.common.membership.ClusterJoiner;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.membership.NodeRegistration;
import io.granary.proxy.membership.ClusterAuthority;
import io.granary.proxy.membership.MetadataPusher;
import io.granary.proxy.membership.PrimaryRole;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A proxy's membership under Lease election. While another proxy holds the Lease it follows that primary (a
 * {@link ClusterJoiner} keeps it registered, changes are forwarded). When it wins: it reads the ConfigMap, takes
 * over as primary of the next epoch ({@link ClusterAuthority#takeOver}) and starts the primary's duties. When it
 * loses the Lease, a ConfigMap write conflicts, or a node refuses its epoch: it fences its authority at once,
 * stops its duties and follows again. Role changes run one at a time on their own thread, as they block on the
 * API server.
 */
public final class LeaseMembership implements AutoCloseable, LeaseElection.Listener {
  private static final Logger log = LoggerFactory.getLogger(LeaseMembership.class);
  private static final long ANNOUNCE_POLL_MS = 250;

  /** What a term needs from the proxy: its authority, and the primary's duties around it. */
  public interface Terms {
    ClusterAuthority authority(MetadataPusher pusher, ConfigMapMetadataStore store);

    /** Starts the primary's duties (health checks, rebalance coordination); closing stops them. */
    AutoCloseable duties(ClusterAuthority authority);
  }

  private final KubernetesClient kube;
  private final LeaseSettings settings;
  private final String namespace;
  private final ClusterMetadataHolder holder;
  private final PrimaryRole role;
  private final Node self;
  private final ControlClient client;
  private final ScheduledExecutorService scheduler;
  private final Terms terms;
  private final Consumer<String> onFatal;
  private final ExecutorService roleThread;
  private final LeaseElection election;
  // Touched on the role thread only:
  private AutoCloseable duties;
  private ClusterJoiner joiner;
  private volatile boolean closed;

  public LeaseMembership(KubernetesClient kube, LeaseSettings settings, ClusterMetadataHolder holder,
      PrimaryRole role, Node self, ControlClient client, ScheduledExecutorService scheduler, Terms terms,
      Consumer<String> onFatal) {
    this.kube = kube;
    this.settings = settings;
    this.namespace = settings.namespace() != null ? settings.namespace()
        : kube.getNamespace() != null ? kube.getNamespace() : "default";
    this.holder = holder;
    this.role = role;
    this.self = self;
    this.client = client;
    this.scheduler = scheduler;
    this.terms = terms;
    this.onFatal = onFatal;
    this.roleThread = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "lease-" + self.id());
      t.setDaemon(true);
      return t;
    });
    this.election = new LeaseElection(kube, settings, namespace, self.id(), this, scheduler);
  }

  /** Follows whoever the ConfigMap names until the election says otherwise, and stands for election. */
  public void start() {
    log.info("node={} standing for Lease {}/{} (duration {}), metadata in ConfigMap {}", self.id(), namespace,
        settings.name(), settings.leaseDuration(), settings.configMapName());
    roleThread.execute(() -> {
      follow();
      lookUpPrimary(null, 0);
    });
    election.start();
  }

  @Override
  public void elected() {
    onRoleThread(this::takeOver);
  }

  @Override
  public void deposed() {
    onRoleThread(() -> stepDown("lost Lease " + settings.name()));
  }

  @Override
  public void leader(String holderId) {
    if (holderId != null && !holderId.equals(self.id())) {
      log.info("node={} Lease {} is held by {}", self.id(), settings.name(), holderId);
      onRoleThread(() -> lookUpPrimary(holderId, 0));
    }
  }

  /** Role changes run one at a time, in order; none once closed. */
  private void onRoleThread(Runnable r) {
    if (closed) {
      return;
    }
    try {
      roleThread.execute(r);
    } catch (RejectedExecutionException e) {
      // closing meanwhile
    }
  }

  private void takeOver() {
    if (closed || role.primary()) {
      return;
    }
    // The store and pusher report for this term only: a late report of an ended term must not end the next one.
    AtomicReference<ClusterAuthority> thisTerm = new AtomicReference<>();
    ConfigMapMetadataStore store = new ConfigMapMetadataStore(kube, namespace, settings.configMapName(), self.url(),
        () -> onRoleThread(() -> stepDown(thisTerm.get(), "another proxy recorded newer metadata")));
    MetadataPusher pusher = new MetadataPusher(self.id(), client, scheduler,
        () -> onRoleThread(() -> stepDown(thisTerm.get(), "a node follows a newer epoch")));
    ClusterAuthority authority = terms.authority(pusher, store);
    thisTerm.set(authority);
    PrimaryRole.Term term = new PrimaryRole.Term(authority, pusher);
    // Promoted under the authority's lock (its methods are synchronized): a request that comes once the record
    // names this proxy finds it primary, and waits until the takeover is done rather than act on the old map.
    synchronized (authority) {
      role.promote(term);
      try {
        var recorded = store.load();
        authority.takeOver(self, recorded.map(ConfigMapMetadataStore.Recorded::metadata).orElse(null));
      } catch (RuntimeException e) {
        // Another proxy recorded since we read, the API server failed us, or the record is unreadable: do not lead.
        log.warn("node={} won Lease {} but could not take over: {}", self.id(), settings.name(), e.toString());
        authority.fence();
        role.demote();
        pusher.close();
        election.resign();
        return;
      }
    }
    stopFollowing();
    duties = terms.duties(authority);
    log.info("node={} is the primary (Lease {}, epoch {})", self.id(), settings.name(),
        holder.require().map().epoch());
  }

  /** Ends the term of {@code authority} if it is the current one. */
  private void stepDown(ClusterAuthority authority, String why) {
    PrimaryRole.Term term = role.term();
    if (term != null && term.authority() == authority) {
      stepDown(why);
    }
  }

  private void stepDown(String why) {
    PrimaryRole.Term term = role.demote();
    if (term == null) {
      return;
    }
    term.authority().fence();
    term.pusher().close();
    closeQuietly(duties);
    duties = null;
    log.warn("node={} stepped down as primary: {}; following the new one", self.id(), why);
    election.resign(); // a no-op when the Lease is lost already; gives it up when we were fenced first
    if (!closed) {
      follow();
      lookUpPrimary(null, 0);
    }
  }

  private void follow() {
    if (joiner != null || closed) {
      return;
    }
    joiner = new ClusterJoiner(holder, client, role::primaryUrl,
        new NodeRegistration(self.id(), NodeRole.PROXY, self.url(), 0), scheduler, Duration.ofSeconds(10), onFatal,
        () -> onFatal.accept(ClusterJoiner.DECOMMISSIONED));
    joiner.start();
  }

  private void stopFollowing() {
    if (joiner != null) {
      joiner.close();
      joiner = null;
    }
  }

  /**
   * Learns from the ConfigMap where the primary serves. After a failover the new holder records itself there as it
   * takes over: until then (while the ConfigMap names another than {@code expected}) look again shortly, for up to
   * two lease durations (a holder that cannot take over resigns, and the election names the next).
   */
  private void lookUpPrimary(String expected, int attempt) {
    if (closed || role.primary()) {
      return;
    }
    Optional<ConfigMapMetadataStore.Recorded> r;
    try {
      r = ConfigMapMetadataStore.read(kube, namespace, settings.configMapName());
    } catch (KubernetesClientException | IllegalStateException e) {
      log.warn("node={} cannot read ConfigMap {}: {}", self.id(), settings.configMapName(), e.getMessage());
      r = Optional.empty();
    }
    var rec = r.filter(x -> x.metadata() != null && x.primaryUrl() != null).orElse(null);
    if (rec != null && !self.id().equals(rec.primaryId())) {
      role.announced(rec.primaryUrl(), rec.metadata().map().epoch());
    }
    boolean waiting = expected != null && (rec == null || !expected.equals(rec.primaryId()));
    if (waiting && attempt * ANNOUNCE_POLL_MS < 2 * settings.leaseDuration().toMillis()) {
      scheduler.schedule(() -> onRoleThread(() -> lookUpPrimary(expected, attempt + 1)), ANNOUNCE_POLL_MS,
          TimeUnit.MILLISECONDS);
    }
  }

  private static void closeQuietly(AutoCloseable c) {
    if (c == null) {
      return;
    }
    try {
      c.close();
    } catch (Exception e) {
      log.warn("stopping the primary's duties failed", e);
    }
  }

  @Override
  public void close() {
    closed = true;
    election.close(); // releases the Lease if held, so another proxy takes over without waiting for it to expire
    roleThread.execute(() -> {
      stopFollowing();
      PrimaryRole.Term term = role.demote();
      if (term != null) {
        term.authority().fence();
        term.pusher().close();
      }
      closeQuietly(duties);
    });
    roleThread.shutdown();
    try {
      roleThread.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
