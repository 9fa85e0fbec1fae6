package io.granary.proxy;

import io.granary.clustermap.Node;
import io.granary.clustermap.NodeRole;
import io.granary.clustermap.NodeState;
import io.granary.common.auth.ClusterRequests;
import io.granary.common.auth.ClusterSigner;
import io.granary.backend.RemoteBuckets;
import io.granary.common.control.ControlClient;
import io.granary.common.http.client.UpstreamPool;
import io.granary.common.s3.auth.RequestAuthenticator;
import io.granary.proxy.listing.ListingMerger;
import io.granary.proxy.s3.S3Router;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.HttpServer;
import io.granary.common.http.Transport;
import io.granary.common.membership.ClusterJoiner;
import io.granary.common.membership.ReadinessHandler;
import io.granary.common.lifecycle.GracefulStop;
import io.granary.common.lifecycle.Stopping;
import io.granary.common.membership.Readiness;
import io.granary.common.http.Router;
import io.granary.proxy.membership.ProxyReadiness;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.membership.MetadataFiles;
import io.granary.common.membership.NodeRegistration;
import io.granary.common.metrics.MetricsHandler;
import io.granary.common.metrics.NodeMetrics;
import io.granary.proxy.http.ProxyRouter;
import io.granary.proxy.jobs.ProxyJobRoutes;
import io.granary.proxy.jobs.ProxyJobs;
import io.granary.proxy.mirror.MakeNCopiesJobs;
import io.granary.proxy.scrub.ScrubJobs;
import io.granary.proxy.membership.ClusterAuthority;
import io.granary.proxy.membership.HealthMonitor;
import io.granary.proxy.membership.MetadataPusher;
import io.granary.proxy.membership.PrimaryRole;
import io.granary.proxy.k8s.ConfigMapMetadataStore;
import io.granary.proxy.k8s.LeaseMembership;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.granary.proxy.rebalance.CapacityGuard;
import io.granary.proxy.rebalance.RebalanceCoordinator;
import io.granary.proxy.rebalance.RebalanceJobs;
import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running proxy. Without a primary URL it is the primary: it creates or resumes the cluster, accepts joins,
 * pushes metadata and health-checks nodes. With one, it joins that primary and forwards metadata changes to it.
 * Under Kubernetes Lease election ({@link ProxyConfig#lease()}) it is the primary while it holds the Lease.
 */
public final class ProxyNode implements GracefulStop {
  private static final Logger log = LoggerFactory.getLogger(ProxyNode.class);

  private final String id;
  private final String url;
  private final HttpServer server;
  private final EventLoopGroup workers;
  private final ScheduledExecutorService scheduler;
  private final BoundedExecutor control;
  private final AutoCloseable membership;
  private final UpstreamPool upstream;
  private final RemoteBuckets remotes;
  private final BoundedExecutor remotePool;
  private final Stopping stopping; // readiness false from the first moment of a graceful stop

  private ProxyNode(String id, String url, HttpServer server, EventLoopGroup workers,
      ScheduledExecutorService scheduler, BoundedExecutor control, AutoCloseable membership, UpstreamPool upstream,
      RemoteBuckets remotes, BoundedExecutor remotePool, Stopping stopping) {
    this.stopping = stopping;
    this.upstream = upstream;
    this.remotes = remotes;
    this.remotePool = remotePool;
    this.id = id;
    this.url = url;
    this.server = server;
    this.workers = workers;
    this.scheduler = scheduler;
    this.control = control;
    this.membership = membership;
  }

  public static ProxyNode start(ProxyConfig cfg, Consumer<String> onFatal) throws Exception {
    Files.createDirectories(cfg.dataDir());
    String id = resolveId(cfg.dataDir(), cfg.id());
    ClusterMetadataHolder holder = new ClusterMetadataHolder(id, new MetadataFiles(List.of(cfg.dataDir())));
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "membership-" + id);
      t.setDaemon(true);
      return t;
    });
    BoundedExecutor control = new BoundedExecutor("control-" + id, 4, 1024);
    ClusterSigner signer = cfg.clusterSecret() == null ? null : ClusterSigner.of(cfg.clusterSecret());
    ControlClient client = new ControlClient(Duration.ofSeconds(10), null, signer);
    boolean elected = cfg.lease() != null;
    boolean primary = !elected && cfg.primaryUrl() == null;
    ClusterAuthority authority = null;
    PrimaryRole role;
    if (elected) {
      role = PrimaryRole.elected(holder);
    } else if (primary) {
      MetadataPusher pusher = new MetadataPusher(id, client, scheduler);
      authority = new ClusterAuthority(holder, pusher, Clock.systemUTC(), new CapacityGuard(client));
      role = PrimaryRole.fixedPrimary(holder, new PrimaryRole.Term(authority, pusher));
    } else {
      role = PrimaryRole.follower(holder, cfg.primaryUrl());
    }
    Transport transport = Transport.best();
    EventLoopGroup workers = transport.newGroup(cfg.ioThreads(), "http-" + id);
    // Spliceable: the S3 relay moves large bodies from target to client in the kernel (see BodySplice).
    UpstreamPool upstream = new UpstreamPool(transport, 1024, 4096, true);
    // Remote buckets are listed from their stores; those calls block, so they get their own bounded pool.
    RemoteBuckets remotes = new RemoteBuckets(Duration.ofSeconds(30), 8);
    BoundedExecutor remotePool = new BoundedExecutor("remote-" + id, 8, 256);
    ProxyContext ctx = new ProxyContext(holder, role, client, control, signer, upstream,
        new ListingMerger(client, remotes, remotePool), new RequestAuthenticator(cfg.credentials(), cfg.anonymous(), Clock.systemUTC()),
        cfg.nativeAuth(), cfg.s3Redirect(), cfg.upstreamHeadTimeout());
    // ---- prefetch jobs (io.granary.proxy.jobs): stateless fan-out to targets; the scheduler times ?wait polls
    // ---- rebalance (io.granary.proxy.rebalance): a job kind of its own, coordinated by the primary
    RebalanceJobs rebalanceJobs = new RebalanceJobs(holder, role, client, control, scheduler);
    ProxyJobRoutes jobs = new ProxyJobRoutes(new ProxyJobs(holder, client, scheduler), List.of(rebalanceJobs,
        new MakeNCopiesJobs(holder, client, scheduler), new ScrubJobs(holder, client, scheduler)));
    // ---- end prefetch jobs
    ProxyRouter router = new ProxyRouter(ctx, new S3Router(ctx), jobs);
    ControlClient healthClient = new ControlClient(
        cfg.offlineAfter().dividedBy(2).compareTo(Duration.ofSeconds(3)) < 0
            ? cfg.offlineAfter().dividedBy(2) : Duration.ofSeconds(3), null, signer);
    // The primary's health checks, one monitor per term (under election a proxy may have several terms)
    AtomicReference<HealthMonitor> monitor = new AtomicReference<>();
    // Readiness (GET /v1/health/ready), answered before authentication like /v1/health: probes do not sign.
    // A follower trusts the states the primary pushes; a primary counts targets its own health checks heard.
    Stopping stopping = new Stopping();
    Router ready = ReadinessHandler.route(router, holder, "proxy", Readiness.all(stopping,
        new ProxyReadiness(holder, targetId -> {
          HealthMonitor m = monitor.get();
          return m == null ? !role.primary() : m.answeredSinceStart(targetId);
        })));
    HttpServer server;
    try {
      // Prometheus metrics (io.granary.common.metrics): GET /metrics, answered before authentication and S3 routing
      NodeMetrics metrics = new NodeMetrics(id);
      metrics.clusterMap(holder);
      server = HttpServer.start(cfg.host(), cfg.port(), MetricsHandler.route(ready, metrics), id, transport, workers,
          cfg.http(), true, metrics.requests(), ClusterRequests.signedBy(signer));
      metrics.httpEdge(server);
    } catch (Exception e) {
      workers.shutdownGracefully(0, 0, TimeUnit.SECONDS);
      control.close();
      scheduler.shutdownNow();
      throw e;
    }
    String url = cfg.publicUrl() != null ? cfg.publicUrl() : "http://" + cfg.host() + ":" + server.port();
    AutoCloseable membership;
    Node self = new Node(id, NodeRole.PROXY, url, NodeState.ACTIVE, 1);
    Function<ClusterAuthority, AutoCloseable> startDuties = a -> {
      HealthMonitor m = new HealthMonitor(holder, a, healthClient, scheduler, control::execute, cfg.healthInterval(),
          cfg.offlineAfter(), Clock.systemUTC());
      monitor.set(m);
      m.start();
      RebalanceCoordinator coordinator = new RebalanceCoordinator(holder, a, client, scheduler, control,
          RebalanceCoordinator.INTERVAL, cfg.rebalanceRetry());
      coordinator.start();
      return () -> {
        coordinator.close();
        m.close();
        monitor.compareAndSet(m, null);
      };
    };
    if (elected) {
      KubernetesClient kube = new KubernetesClientBuilder().build();
      LeaseMembership lease = new LeaseMembership(kube, cfg.lease(), holder, role, self, client, scheduler,
          new LeaseMembership.Terms() {
            @Override
            public ClusterAuthority authority(MetadataPusher pusher, ConfigMapMetadataStore store) {
              return new ClusterAuthority(holder, pusher, Clock.systemUTC(), new CapacityGuard(client), store);
            }

            @Override
            public AutoCloseable duties(ClusterAuthority a) {
              return startDuties.apply(a);
            }
          }, onFatal);
      lease.start();
      membership = () -> {
        lease.close();
        kube.close();
      };
    } else if (primary) {
      authority.bootstrap(self);
      membership = startDuties.apply(authority);
    } else {
      ClusterJoiner joiner = new ClusterJoiner(holder, client, cfg.primaryUrl(),
          new NodeRegistration(id, NodeRole.PROXY, url, 0), scheduler, Duration.ofSeconds(10), onFatal);
      joiner.start();
      membership = joiner;
    }
    log.info("node={} {} proxy serving {} (transport {}, limits {})", id,
        elected ? "elected (Lease " + cfg.lease().name() + ")" : primary ? "primary" : "non-primary", url,
        transport, cfg.http().describe());
    return new ProxyNode(id, url, server, workers, scheduler, control, membership, upstream, remotes, remotePool,
        stopping);
  }

  /** The id persisted in the data directory, else {@code requested}, else a new random one. */
  private static String resolveId(Path dataDir, String requested) throws IOException {
    Path f = dataDir.resolve("node-id");
    if (Files.exists(f)) {
      String id = Files.readString(f, StandardCharsets.UTF_8).trim();
      if (requested != null && !requested.equals(id)) {
        throw new IOException("data directory " + dataDir + " belongs to proxy '" + id + "', not '" + requested + "'");
      }
      return id;
    }
    String id = requested != null ? Node.requireValidId(requested) : Node.randomId("p");
    MetadataFiles.writeAtomically(f, (id + "\n").getBytes(StandardCharsets.UTF_8));
    return id;
  }

  public String id() {
    return id;
  }

  public String url() {
    return url;
  }

  public int port() {
    return server.port();
  }

  /**
   * A graceful stop (SIGTERM): readiness goes false at once, the listener stops accepting, the requests in flight
   * (S3 streams relayed from targets included) get up to {@code grace} to finish, then it closes. A primary keeps its
   * membership duties (health checks, metadata) until then. {@link Duration#ZERO}: close at once.
   */
  @Override
  public void stop(Duration grace) throws Exception {
    if (!stopping.begin()) {
      return;
    }
    if (!grace.isZero()) {
      log.info("node={} stopping gracefully: not ready, requests in flight get up to {}", id, grace);
      int open = server.drain(grace);
      if (open > 0) {
        log.warn("node={} {} connections still busy after the shutdown grace of {}: closing them", id, open, grace);
      }
    }
    close();
  }

  @Override
  public void close() throws Exception {
    stopping.begin();
    membership.close();
    scheduler.shutdownNow();
    server.close();
    upstream.close();
    workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
    control.close();
    remotePool.close();
    remotes.close();
    log.info("node={} proxy stopped", id);
  }
}
