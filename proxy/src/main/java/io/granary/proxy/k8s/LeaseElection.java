package io.granary.proxy.k8s;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This proxy's candidacy for the Lease (fabric8 {@code LeaderElector} with a {@code LeaseLock}, holder identity =
 * node id). An elector ends when it loses the Lease; this starts a new one so the proxy stays a candidate. The
 * callbacks run on fabric8's threads and must only hand off.
 */
final class LeaseElection implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(LeaseElection.class);

  /** What the election tells the proxy. */
  interface Listener {
    /** This proxy acquired the Lease. */
    void elected();

    /** This proxy no longer holds the Lease (it may be called more than once per term). */
    void deposed();

    /** {@code holder} holds the Lease now (null: released). */
    void leader(String holder);
  }

  private final KubernetesClient client;
  private final LeaseSettings settings;
  private final String namespace;
  private final String identity;
  private final Listener listener;
  private final ScheduledExecutorService scheduler;
  private CompletableFuture<?> current; // guarded by this
  private boolean closed;               // guarded by this

  LeaseElection(KubernetesClient client, LeaseSettings settings, String namespace, String identity,
      Listener listener, ScheduledExecutorService scheduler) {
    this.client = client;
    this.settings = settings;
    this.namespace = namespace;
    this.identity = identity;
    this.listener = listener;
    this.scheduler = scheduler;
  }

  synchronized void start() {
    if (closed) {
      return;
    }
    var config = new LeaderElectionConfigBuilder()
        .withName(settings.name())
        .withLock(new LeaseLock(namespace, settings.name(), identity))
        .withLeaseDuration(settings.leaseDuration())
        .withRenewDeadline(settings.renewDeadline())
        .withRetryPeriod(settings.retryPeriod())
        .withReleaseOnCancel(true)
        .withLeaderCallbacks(new LeaderCallbacks(listener::elected, listener::deposed, listener::leader))
        .build();
    CompletableFuture<?> f = client.leaderElector().withConfig(config).build().start();
    current = f;
    f.whenComplete((v, err) -> again(f, settings.retryPeriod()));
  }

  /** A new candidacy after {@code delay} once {@code ended} ended, unless closed or already replaced. */
  private synchronized void again(CompletableFuture<?> ended, Duration delay) {
    if (closed || current != ended) {
      return;
    }
    current = null;
    scheduler.schedule(this::start, delay.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * Gives the Lease up (this proxy could not take over: another recorded newer metadata) and stands again after
   * a lease duration, so that the others get their turn first.
   */
  synchronized void resign() {
    CompletableFuture<?> f = current;
    if (f == null || closed) {
      return;
    }
    log.info("node={} resigns Lease {}/{}", identity, namespace, settings.name());
    current = null;
    f.cancel(true); // releases the Lease (releaseOnCancel)
    scheduler.schedule(this::start, settings.leaseDuration().toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public synchronized void close() {
    closed = true;
    if (current != null) {
      current.cancel(true);
    }
  }
}
