package io.granary.common.membership;

import io.granary.clustermap.NodeState;
import io.granary.common.api.ApiPaths;
import io.granary.common.control.ControlClient;
import io.granary.common.error.ConflictException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a non-primary node registered with the primary: registers at start (retrying with backoff until the
 * primary answers; a new target registers twice, the second time holding the metadata the first answered, see
 * {@link io.granary.clustermap.NodeState#JOINING}), then checks periodically that the map it holds still lists it at its URL, and registers again
 * if not (for example after the primary lost its state). A node that finds itself in another cluster stops: that
 * is an operator error no retry can fix. A node that was decommissioned (it left the map, and the primary refuses
 * its id) stops too, as its job is done. The primary's URL may name a host that does not resolve yet (a Kubernetes
 * Service before its first pod runs): registration retries with the same backoff and says so ({@link PrimaryHost}).
 */
public final class ClusterJoiner implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ClusterJoiner.class);
  private static final long MAX_BACKOFF_MS = 5000;
  /** The reason {@code onFatal} gets when the node was decommissioned (by the constructor without a callback). */
  public static final String DECOMMISSIONED = "decommissioned";

  private final ClusterMetadataHolder holder;
  private final ControlClient client;
  private final Supplier<String> primaryUrl;
  private final NodeRegistration self;
  private final ScheduledExecutorService scheduler;
  private final Duration checkInterval;
  private final Consumer<String> onFatal;
  private final Runnable onDecommissioned;
  private volatile ScheduledFuture<?> next;
  private volatile boolean closed;
  private long backoffMs = 250;
  private int failures;
  private boolean unresolved; // the last attempt found no address for the primary's host

  /**
   * @param onFatal called with a reason when the node must stop (it belongs to another cluster)
   */
  public ClusterJoiner(ClusterMetadataHolder holder, ControlClient client, String primaryUrl, NodeRegistration self,
      ScheduledExecutorService scheduler, Duration checkInterval, Consumer<String> onFatal) {
    this(holder, client, primaryUrl, self, scheduler, checkInterval, onFatal, () -> onFatal.accept(DECOMMISSIONED));
  }

  /**
   * @param onDecommissioned called once when the node learns it was decommissioned (its data has moved and it left
   *     the map): it has nothing left to do
   */
  public ClusterJoiner(ClusterMetadataHolder holder, ControlClient client, String primaryUrl, NodeRegistration self,
      ScheduledExecutorService scheduler, Duration checkInterval, Consumer<String> onFatal,
      Runnable onDecommissioned) {
    this(holder, client, electedOr(holder, primaryUrl), self, scheduler, checkInterval, onFatal, onDecommissioned);
  }

  /**
   * The primary the held map names once proxies elect theirs (a map of epoch above 0: the primary moves on
   * failover, and the new one pushes its map to every node), else {@code configured}.
   */
  private static Supplier<String> electedOr(ClusterMetadataHolder holder, String configured) {
    return () -> holder.snapshot().map(ClusterMetadataHolder.Snapshot::map).filter(m -> m.epoch() > 0)
        .map(m -> m.primaryNode().url()).orElse(configured);
  }

  /**
   * @param primaryUrl where the primary is now, asked at every registration (null while none is known): under
   *     Lease election the primary moves between proxies
   */
  public ClusterJoiner(ClusterMetadataHolder holder, ControlClient client, Supplier<String> primaryUrl,
      NodeRegistration self, ScheduledExecutorService scheduler, Duration checkInterval, Consumer<String> onFatal,
      Runnable onDecommissioned) {
    this.onDecommissioned = onDecommissioned;
    this.holder = holder;
    this.client = client;
    this.primaryUrl = () -> {
      String u = primaryUrl.get();
      return u != null && u.endsWith("/") ? u.substring(0, u.length() - 1) : u;
    };
    this.self = self;
    this.scheduler = scheduler;
    this.checkInterval = checkInterval;
    this.onFatal = onFatal;
  }

  public void start() {
    schedule(this::register, 0);
  }

  private void schedule(Runnable r, long delayMs) {
    if (!closed) {
      next = scheduler.schedule(r, delayMs, TimeUnit.MILLISECONDS);
    }
  }

  private void register() {
    String primary = primaryUrl.get();
    if (primary == null) {
      retry(new IllegalStateException("no primary is known yet"));
      return;
    }
    PrimaryHost primaryHost = new PrimaryHost(primary); // the primary may move (Lease election): its URL each time
    try {
      var address = primaryHost.resolve();
      if (unresolved) {
        unresolved = false;
        log.info("node={} primary host {} resolves now, to {}", self.id(), primaryHost.host(),
            address.getHostAddress());
      }
    } catch (UnknownHostException e) {
      unresolved = true;
      retry(e);
      return;
    }
    long holds = holder.snapshot().map(s -> s.map().version()).orElse(0L);
    long buckets = holder.snapshot().map(s -> s.buckets().version()).orElse(0L);
    client.send("POST", primary + ApiPaths.CLUSTER_JOIN, self.holding(holds, buckets), ClusterMetadata.class)
        .whenComplete((md, err) -> {
          try {
            if (err == null) {
              registered(md, holds);
            } else {
              refused(ControlClient.cause(err));
            }
          } catch (ConflictException e) {
            if (ConflictException.STALE_EPOCH.equals(e.code())) {
              retry(e); // answered by a deposed primary: the current one is found again next time
            } else {
              fatal(e.getMessage());
            }
          } catch (RuntimeException e) {
            retry(e);
          }
        });
  }

  private void registered(ClusterMetadata md, long heldWhenSent) {
    holder.apply(md);
    failures = 0;
    backoffMs = 250;
    if (md.map().node(self.id()).map(n -> n.state() == NodeState.JOINING).orElse(false)) {
      // The first of a new target's two steps: it holds the metadata now, so it can take clients. (Were it still
      // joining though it held a map, the primary has not taken that yet: ask again, not in a tight loop.)
      log.info("node={} joining cluster {} via primary {} (map v{})", self.id(), md.map().uuid(),
          md.map().primary(), md.map().version());
      schedule(this::register, heldWhenSent > 0 ? backoffMs : 0);
      return;
    }
    log.info("node={} registered with cluster {} via primary {} (map v{})", self.id(), md.map().uuid(),
        md.map().primary(), md.map().version());
    schedule(this::check, checkInterval.toMillis());
  }

  private void refused(Throwable cause) {
    if (cause instanceof ControlClient.RemoteCallException rce
        && ConflictException.NODE_DECOMMISSIONED.equals(rce.error().code())) {
      decommissioned();
      return;
    }
    if (cause instanceof ControlClient.RemoteCallException rce && rce.status() >= 400 && rce.status() < 500
        && rce.status() != 404 && rce.status() != 408) {
      // Another cluster, a decommissioned id, an invalid registration: retrying cannot fix it.
      fatal("the primary refused registration: " + rce.error().code() + ": " + rce.error().message());
      return;
    }
    retry(cause);
  }

  private void retry(Throwable cause) {
    failures++;
    if (Integer.bitCount(failures) == 1 || failures % 20 == 0) { // attempts 1, 2, 4, 8, 16, 20, 32, 40, ...
      String primary = primaryUrl.get();
      if (cause instanceof UnknownHostException) {
        log.warn("node={} cannot register with primary {} yet: host {} does not resolve (no DNS record yet?); "
            + "retrying with backoff, next in {} ms ({} attempts)", self.id(), primary,
            primary == null ? "?" : new PrimaryHost(primary).host(), backoffMs, failures);
      } else {
        log.warn("node={} cannot register with primary {} yet ({} attempts): {}", self.id(), primary, failures,
            cause.toString());
      }
    }
    schedule(this::register, backoffMs);
    backoffMs = Math.min(MAX_BACKOFF_MS, backoffMs * 2);
  }

  private void check() {
    if (holder.snapshot().map(s -> s.map().retired().contains(self.id())).orElse(false)) {
      decommissioned();
      return;
    }
    // A node being decommissioned asks the primary at every check: the map that retires it is not pushed to it.
    boolean listed = holder.snapshot().flatMap(s -> s.map().node(self.id()))
        .filter(n -> n.url().equals(stripSlash(self.url())) && n.state() != NodeState.DECOMMISSIONING
            && n.state() != NodeState.JOINING)
        .isPresent();
    if (listed) {
      schedule(this::check, checkInterval.toMillis());
    } else {
      if (holder.snapshot().flatMap(s -> s.map().node(self.id())).isEmpty()) {
        log.info("node={} is not in cluster map as {}; registering again", self.id(), self.url());
      }
      register();
    }
  }

  private static String stripSlash(String u) {
    return u.endsWith("/") ? u.substring(0, u.length() - 1) : u;
  }

  private void decommissioned() {
    log.info("node={} was decommissioned: its objects have moved and it left the map; it can be removed", self.id());
    closed = true;
    onDecommissioned.run();
  }

  private void fatal(String reason) {
    log.error("node={} must stop: {}", self.id(), reason);
    closed = true;
    onFatal.accept(reason);
  }

  @Override
  public void close() {
    closed = true;
    ScheduledFuture<?> f = next;
    if (f != null) {
      f.cancel(false);
    }
  }
}
