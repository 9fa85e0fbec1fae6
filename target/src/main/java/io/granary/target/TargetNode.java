package io.granary.target;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.NodeRole;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.common.auth.ClusterRequests;
import io.granary.common.auth.ClusterSigner;
import io.granary.common.control.ControlClient;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.HttpServer;
import io.granary.common.http.LoopbackWarmUp;
import io.granary.common.lifecycle.CompilerSettle;
import io.granary.common.http.Transport;
import io.granary.common.membership.ClusterJoiner;
import io.granary.common.membership.ReadinessHandler;
import io.granary.common.lifecycle.GracefulStop;
import io.granary.common.lifecycle.Stopping;
import io.granary.common.membership.Readiness;
import io.granary.target.membership.ShortLeave;
import io.granary.common.http.Router;
import io.granary.target.membership.TargetReadiness;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.membership.MetadataFiles;
import io.granary.common.membership.NodeRegistration;
import io.granary.common.metrics.MetricsHandler;
import io.granary.common.metrics.NodeMetrics;
import io.granary.target.metrics.TargetMetrics;
import io.granary.target.mirror.MirrorRoutes;
import io.granary.target.mirror.Mirroring;
import io.granary.target.ec.EcObjectHandlers;
import io.granary.target.ec.ErasureCoding;
import io.granary.target.ec.SliceRoutes;
import io.granary.target.validation.CopyVerifier;
import io.granary.target.validation.ScrubRoutes;
import io.granary.target.validation.Scrubs;
import io.granary.target.validation.ValidatingReads;
import io.granary.target.validation.ValidationStats;
import io.granary.target.coldget.CachingObjectHandlers;
import io.granary.target.coldget.ColdObjects;
import io.granary.target.http.ObjectHandlers;
import io.granary.target.http.TargetRouter;
import io.granary.target.jobs.TargetJobRoutes;
import io.granary.target.jobs.TargetJobs;
import io.granary.target.checksum.HasherWarmUp;
import io.granary.target.rebalance.NeighborLookup;
import io.granary.target.rebalance.NeighborObjectHandlers;
import io.granary.target.rebalance.ObjectTransport;
import io.granary.target.rebalance.Rebalancer;
import io.granary.target.rebalance.SendLoops;
import io.granary.target.rebalance.TransportRoutes;
import io.granary.backend.RemoteBuckets;
import io.granary.target.multipart.MultipartStore;
import io.granary.target.s3.CopySource;
import io.granary.target.s3.S3ObjectApi;
import io.granary.target.s3.DirectS3Reads;
import io.granary.target.s3.S3TargetRoutes;
import io.granary.common.http.client.UpstreamPool;
import java.time.Clock;
import io.granary.common.s3.S3Errors;
import io.granary.target.membership.NodeIdFile;
import io.granary.common.api.ApiPaths;
import io.granary.target.multipart.UploadRelocation;
import io.granary.target.resilver.HealthChecker;
import io.granary.target.resilver.MountpathAdmin;
import io.granary.target.resilver.MountpathRoutes;
import io.granary.target.resilver.MountpathStartup;
import io.granary.target.resilver.Resilver;
import io.granary.target.storage.Mountpath;
import io.granary.target.storage.ObjectStore;
import io.granary.target.space.SpaceManager;
import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A running target: storage, HTTP API and cluster membership, started and stopped together. */
public final class TargetNode implements GracefulStop {
  /** How long a new target asks a primary that does not answer yet whether the cluster holds buckets. */
  static final Duration PRIMARY_ANSWER_WAIT = Duration.ofSeconds(15);
  private static final Logger log = LoggerFactory.getLogger(TargetNode.class);
  /** Longest wait for the primary's answer to a graceful stop's leave: the node stops anyway. */
  private static final Duration LEAVE_TIMEOUT = Duration.ofSeconds(5);
  /**
   * What a fresh target asks itself before joining (see {@link LoopbackWarmUp}): health, readiness, an object read,
   * and the transport's routes, which a joining target is sent its share through at once.
   */
  private static final List<String> WARM_UP_PATHS = List.of("/v1/health", "/v1/health/ready",
      ApiPaths.OBJECTS + "granary-warm-up/warm-up", ObjectTransport.PROGRESS,
      ObjectTransport.OBJECTS + "granary-warm-up/warm-up");

  /** How long a starting target rehearses its join ({@link JoinRehearsal}); one rebalance at least. */
  private static final Duration REHEARSAL_BUDGET = Duration.ofSeconds(3);

  private final String id;
  private final String url;
  private final ObjectStore store;
  private final BoundedExecutor disk;
  private final BoundedExecutor urgent; // commits of copies a client waits for (get-from-neighbor)
  private final EventLoopGroup workers;
  private final HttpServer server;
  private final ScheduledExecutorService scheduler;
  private final ClusterJoiner joiner;
  private final UpstreamPool upstream;
  private final ColdObjects cold;
  private final RemoteBuckets remotes;
  private final SpaceManager space; // capacity, access times, LRU eviction (io.granary.target.space)
  private final TargetJobs jobs; // prefetch jobs (io.granary.target.jobs)
  private final Rebalancer rebalancer; // moves objects to their owners (io.granary.target.rebalance)
  private final Resilver resilver; // moves objects to their HRW mountpath (io.granary.target.resilver)
  private final HealthChecker health; // disables failed mountpaths
  private final Mirroring mirroring; // mirror copies (io.granary.target.mirror)
  private final Scrubs scrubs; // scrub jobs (io.granary.target.validation)
  private final ErasureCoding ec; // slices on other targets (io.granary.target.ec)
  private final Stopping stopping; // readiness false from the first moment of a graceful stop
  private final ShortLeave leave; // a graceful stop is a short maintenance without rebalance
  private final ClusterMetadataHolder holder;
  private final MountpathAdmin mountpaths;
  private final MultipartStore multipart;
  private final NeighborLookup neighbors;
  private final ControlClient client;
  private final TargetConfig cfg;

  private TargetNode(String id, String url, ObjectStore store, BoundedExecutor disk, EventLoopGroup workers,
      HttpServer server, ScheduledExecutorService scheduler, ClusterJoiner joiner, UpstreamPool upstream,
      ColdObjects cold, RemoteBuckets remotes, SpaceManager space, TargetJobs jobs, Rebalancer rebalancer,
      Resilver resilver, HealthChecker health, BoundedExecutor urgent, Stopping stopping, ShortLeave leave,
      Mirroring mirroring, Scrubs scrubs, ErasureCoding ec, ClusterMetadataHolder holder, MountpathAdmin mountpaths,
      MultipartStore multipart, NeighborLookup neighbors, ControlClient client, TargetConfig cfg) {
    this.holder = holder;
    this.mountpaths = mountpaths;
    this.multipart = multipart;
    this.neighbors = neighbors;
    this.client = client;
    this.cfg = cfg;
    this.mirroring = mirroring;
    this.scrubs = scrubs;
    this.ec = ec;
    this.stopping = stopping;
    this.leave = leave;
    this.urgent = urgent;
    this.resilver = resilver;
    this.health = health;
    this.jobs = jobs;
    this.rebalancer = rebalancer;
    this.space = space;
    this.upstream = upstream;
    this.cold = cold;
    this.remotes = remotes;
    this.id = id;
    this.url = url;
    this.store = store;
    this.disk = disk;
    this.workers = workers;
    this.server = server;
    this.scheduler = scheduler;
    this.joiner = joiner;
  }

  /**
   * Opens storage, serves HTTP, warms up (unless {@code --warm-up=false}) and starts registering with the primary.
   *
   * @param onFatal called when the target must stop (it belongs to another cluster)
   */
  public static TargetNode start(TargetConfig cfg, Consumer<String> onFatal) throws Exception {
    TargetNode node = open(cfg, onFatal);
    try {
      node.neighbors.warmUp(cfg.primaryUrl());
      if (cfg.rebalance().warmUp()) {
        node.warmUp();
      } else {
        log.info("node={} joins without a warm-up (--warm-up=false)", node.id);
      }
      node.join();
    } catch (Exception | Error e) {
      node.close();
      throw e;
    }
    return node;
  }

  /**
   * Before joining: a joining target is sent its share at once and verifies every byte of it, and is sent the reads
   * of what it owns now; its request path should not be loading classes or running interpreted then.
   */
  private void warmUp() throws InterruptedException {
    boolean placed = placedBeforeStart();
    if (!placed && !clusterHoldsBuckets()) {
      // Nothing will move to it and no reader waits on it: a new cluster's targets (granary local) start at once
      log.info("node={} joins without a warm-up: the cluster holds no bucket yet", id);
      return;
    }
    log.info("node={} checksums warmed up in {} ms", id, HasherWarmUp.run() / 1_000_000);
    boolean rehearsed = false;
    if (placed) {
      log.info("node={} join not rehearsed: it returns to its place in the map, so no rebalance moves to it", id);
    } else if (store.mountpaths().isEmpty()) {
      log.info("node={} join not rehearsed: no readable mountpath", id);
    } else {
      JoinRehearsal.Result r = JoinRehearsal.run(cfg,
          store.mountpaths().get(0).systemDir().resolve(JoinRehearsal.SCRATCH), REHEARSAL_BUDGET);
      rehearsed = r.error() == null;
      if (rehearsed) {
        log.info("node={} join rehearsed: {}", id, r);
      } else {
        log.warn("node={} join rehearsal failed (the target joins all the same): {}", id, r);
      }
    }
    // After a rehearsal only this server's own first requests are left to make; without one, the request path too
    LoopbackWarmUp.Result warm = LoopbackWarmUp.run(client, LoopbackWarmUp.baseUrl(cfg.host(), server.port()),
        WARM_UP_PATHS, rehearsed ? 50 : 200, 8, rehearsed ? 1000 : 3000);
    log.info("node={} request path warmed up: {} requests in {} ms", id, warm.requests(), warm.millis());
    long settled = CompilerSettle.await(cfg.rebalance().joinSettle());
    log.info("node={} JIT compiler quiet after {} ms (at most {} ms)", id, settled,
        cfg.rebalance().joinSettle().toMillis());
  }

  /**
   * Whether the map this target kept from its last run places objects on it (a restart: it comes back to the objects
   * it holds, and nothing moves to it). A new target, or one back from maintenance with rebalance, is not placed.
   */
  private boolean placedBeforeStart() {
    return holder.snapshot().flatMap(s -> s.map().node(id)).map(n -> n.state().inPlacement()).orElse(false);
  }

  /**
   * Whether the cluster this target joins holds a bucket, as its primary says. A primary not listening yet, or
   * listening but not in a cluster yet (503: a new cluster's nodes start together, Kubernetes every pod at once,
   * granary local every process), is asked again for up to {@link #PRIMARY_ANSWER_WAIT}; after that, or for any
   * other failure, true (a rehearsal costs a few seconds of start, a cold join under load costs every reader).
   */
  private boolean clusterHoldsBuckets() throws InterruptedException {
    long deadline = System.nanoTime() + PRIMARY_ANSWER_WAIT.toNanos();
    while (true) {
      try {
        JsonNode answer = client.get(cfg.primaryUrl() + ApiPaths.BUCKETS,
            JsonNode.class).get(5, TimeUnit.SECONDS);
        return answer == null || !answer.path("buckets").isArray() || !answer.path("buckets").isEmpty();
      } catch (ExecutionException | TimeoutException e) {
        if (!primaryStarting(e.getCause()) || System.nanoTime() > deadline) {
          log.info("node={} primary {} did not say whether the cluster holds buckets ({}): rehearsing as if it did",
              id, cfg.primaryUrl(), e.getCause() == null ? e.toString() : e.getCause().toString());
          return true;
        }
        Thread.sleep(200); // a retry interval, as the registration's backoff starts at 250 ms
      }
    }
  }

  /** A failure that means the primary is still starting: nothing listens yet, or it has no cluster yet (503). */
  static boolean primaryStarting(Throwable cause) {
    return cause instanceof java.net.ConnectException
        || cause instanceof ControlClient.RemoteCallException r && r.status() == 503;
  }

  /** Registers with the primary, returns to service after a graceful stop, and follows the cluster's rebalances. */
  private void join() throws IOException {
    joiner.start();
    leave.returnAfterRestart(); // after a graceful stop: active again once registered
    rebalancer.start();
    mountpaths.start(); // after the rebalancer: a moved object another target owns is handed on
    scheduler.scheduleWithFixedDelay(() -> disk.execute(() -> sweepUploads(id, holder, multipart, cfg.multipartTtl())),
        1, 60, TimeUnit.MINUTES);
    log.info("node={} target serving {} on {} with mountpaths {} (transport {}, limits {})", id, url,
        cfg.host() + ":" + server.port(), cfg.mountpaths(), server.transport(), cfg.http().describe());
  }

  /** A rehearsal node ({@link JoinRehearsal}): follows the metadata it is given, registers nowhere. */
  void followOnly() throws IOException {
    rebalancer.start();
  }

  ClusterMetadataHolder holder() {
    return holder;
  }

  /**
   * Opens storage and serves HTTP; registers nowhere yet.
   *
   * @param onFatal called when the target must stop (it belongs to another cluster)
   */
  static TargetNode open(TargetConfig cfg, Consumer<String> onFatal) throws Exception {
    // Mountpaths as the flags and the last run's record say (io.granary.target.resilver): failed ones disabled
    MountpathStartup.Opened opened = MountpathStartup.open(cfg.mountpaths(), cfg.id());
    List<Mountpath> mps = opened.set().readable();
    String id;
    ObjectStore store;
    try {
      id = NodeIdFile.resolve(mps, cfg.id());
      store = ObjectStore.open(id, opened.set(), cfg.reserveBytes());
    } catch (IOException | RuntimeException e) {
      for (Mountpath mp : mps) {
        mp.close();
      }
      throw e;
    }
    ClusterMetadataHolder holder = new ClusterMetadataHolder(id,
        new MetadataFiles(() -> store.mountpaths().stream().map(Mountpath::systemDir).toList()));
    BoundedExecutor disk = new BoundedExecutor("disk-" + id, cfg.diskThreads(), 4096);
    MultipartStore multipart = new MultipartStore(id, store, Clock.systemUTC());
    holder.onChange((old, now) -> destroyRemovedBuckets(id, old, now, store, multipart, disk));

    // ---- space management: used capacity, access times, LRU eviction of remote-bucket copies, 507 when full
    SpaceManager space = new SpaceManager(id, store, cfg.cache(),
        () -> holder.snapshot().map(s -> s.buckets().buckets().values()).orElse(List.of()), Clock.systemUTC());
    space.start();
    // ---- end space management

    Transport net = Transport.best();
    EventLoopGroup workers = net.newGroup(cfg.ioThreads(), "http-" + id);
    ClusterSigner signer = cfg.clusterSecret() == null ? null : ClusterSigner.of(cfg.clusterSecret());
    UpstreamPool upstream = new UpstreamPool(net, 64, 1024);
    RemoteBuckets remotes = new RemoteBuckets(cfg.cache().backendReadTimeout(), 4 * cfg.cache().coldThreads());
    ColdObjects cold = new ColdObjects(id, store, remotes, cfg.cache(), upstream);
    multipart.writeThroughWith(cold::writeThrough);
    // A newly registered remote bucket gets its client now, so its first cold GET does not pay for building it.
    holder.onChange((old, now) -> now.buckets().buckets().values().stream().filter(BucketProps::isRemote)
        .forEach(b -> cold.pool().execute(() -> {
          try {
            remotes.backend(b);
          } catch (IOException | RuntimeException e) {
            log.warn("node={} bucket={} remote client not ready: {}", id, b.bucket(), e.getMessage());
          }
        })));
    // ---- rebalance (io.granary.target.rebalance): objects move to their owners; reads find them meanwhile
    Rebalancer rebalancer = new Rebalancer(id, holder, store, upstream, SendLoops.create(net, cfg.ioThreads(), id),
        signer, cfg.rebalance(), new Rebalancer.Space() {
          @Override
          public long heldBytes() {
            return store.mountpaths().stream().mapToLong(mp -> mp.usage().objectBytes()).sum();
          }

          @Override
          public long roomBytes() {
            long room = 0;
            for (Mountpath mp : store.mountpaths()) {
              try {
                var c = space.capacity(mp);
                room += Math.max(0, c.bytesAt(cfg.cache().highWatermark()) - c.usedBytes());
              } catch (IOException e) {
                // an unmeasurable mountpath takes nothing
              }
            }
            return room;
          }

          @Override
          public boolean holdsUploads() throws IOException {
            return multipart.holdsUploads();
          }
        });
    // Pushing a neighbor's object here can take as long as sending a large object between two targets.
    NeighborLookup neighbors = new NeighborLookup(id, holder, new ControlClient(Duration.ofMinutes(5), null, signer),
        store);
    // An upload completed here whose key another target owns now (it joined, or this one leaves) is sent there.
    multipart.deliverThrough(rebalancer.completions(new ControlClient(Duration.ofSeconds(30), null, signer)));
    // Created before the handlers, which repair from mirror copies; after the rebalancer, whose commit listener runs
    // first (a write this target does not own is handed on, not mirrored)
    Mirroring mirroring = new Mirroring(id, store, b -> currentBucket(holder, b), Mirroring.DEFAULT_WORKERS,
        Mirroring.DEFAULT_CAPACITY);
    // ---- erasure coding (io.granary.target.ec): slices on other targets after each commit; reads rebuild
    ErasureCoding ec = new ErasureCoding(id, store, holder, b -> currentBucket(holder, b), rebalancer.peerFiles(),
        new ControlClient(Duration.ofSeconds(30), null, signer), ErasureCoding.DEFAULT_CELL_SIZE);
    // ---- validation (io.granary.target.validation): warm GETs re-hashed, scrubs, quarantine and repair
    ValidationStats validationStats = new ValidationStats();
    CopyVerifier verifier = new CopyVerifier(id, store, mirroring, validationStats,
        ec::rebuildMain); // no intact copy here: the EC slices
    Scrubs scrubs = new Scrubs(id, store, verifier, b -> currentBucket(holder, b));
    holder.onChange((old, now) -> {
      ec.bucketsChanged(old == null ? null : old.buckets().buckets(), now.buckets().buckets().values());
      ec.mapChanged(old == null ? null : old.map(), now.map());
    });
    holder.snapshot().ifPresent(s -> ec.bucketsChanged(null, s.buckets().buckets().values()));
    // outermost: a read of a lost main copy (or of an offline owner's object) is rebuilt before anything else
    ObjectHandlers handlers = new EcObjectHandlers(new NeighborObjectHandlers(
        new CachingObjectHandlers(cold, disk, new ValidatingReads(id, disk, verifier)), store, neighbors,
        rebalancer.relocation(), disk, id, upstream, signer, rebalancer.stats(), cfg.rebalance().neighborRelaySize()),
        store, holder, ec, neighbors::mapOf, neighbors::unsettled);
    // ---- end erasure coding
    // Copies a client waits for (get-from-neighbor) commit on a pool of their own, never behind the rebalance's.
    BoundedExecutor urgent = new BoundedExecutor("disk-urgent-" + id, 4, 1024);
    TransportRoutes transport = new TransportRoutes(holder, rebalancer, disk, urgent);
    // ---- end rebalance
    // ---- prefetch jobs (io.granary.target.jobs): each job fills through the cold-GET path
    TargetJobs jobs = new TargetJobs(id, holder, cold, remotes, TargetJobs.DEFAULT_CONCURRENCY,
        TargetJobs.MAX_CONCURRENCY);
    // ---- end prefetch jobs
    S3TargetRoutes s3 = new S3TargetRoutes(new S3ObjectApi(holder, S3Errors.RENDERER), store,
        rebalancer.relocation(), multipart, disk,
        new CopySource(holder, upstream, signer), handlers);
    // ---- resilver (io.granary.target.resilver): mountpaths change at run time; objects move to their HRW one
    HealthChecker health = new HealthChecker(id, store);
    Resilver resilver = new Resilver(id, store, holder, new UploadRelocation(multipart), Resilver.DEFAULT_THREADS);
    MountpathAdmin mountpaths = new MountpathAdmin(id, store, holder, resilver, health, mp -> {
      var c = space.capacity(mp);
      return new long[] {c.usedBytes(), c.capacityBytes()};
    }, cfg.mountpaths(), opened);
    mountpaths.onSlicesLost(ec::slicesLost); // owners audit and send again what the mountpath held
    mountpaths.onSlicesBack(ec::slicesBack); // what was sent again meanwhile is held once
    scrubs.alongside(ec::scrub); // a scrub of an erasure-coded bucket checks and audits its slices too
    // ---- end resilver
    // ---- mirroring (io.granary.target.mirror): copies of a mirrored bucket's objects on other mountpaths
    resilver.setMirroredObjects(mirroring);
    holder.onChange((old, now) -> mirroring.bucketsChanged(old == null ? null : old.buckets().buckets(),
        now.buckets().buckets().values()));
    // copies a stop or a crash left unmade: the metadata loaded from disk counts as the first one seen
    holder.snapshot().ifPresent(s -> mirroring.bucketsChanged(null, s.buckets().buckets().values()));
    // ---- end mirroring
    TargetRouter router = new TargetRouter(holder, store, disk, s3, multipart, signer, handlers,
        new TargetJobRoutes(jobs))
        .directS3(new DirectS3Reads(id, holder, s3, cfg.s3Keys(), Clock.systemUTC()))
        .mount(ObjectTransport.PREFIX, transport::route)
        .mount(ObjectTransport.PROGRESS, transport::route)
        .mount(ApiPaths.MOUNTPATHS, new MountpathRoutes(mountpaths, disk))
        .mount(MirrorRoutes.PATH, new MirrorRoutes(id, mirroring, holder))
        .mount(ScrubRoutes.PATH, new ScrubRoutes(id, scrubs, holder))
        .mount(SliceRoutes.PATH, new SliceRoutes(holder, ec.slices(), store, disk, ec::report, ec::auditAsked));
    HttpServer server;
    Stopping stopping = new Stopping();
    try {
      // Prometheus metrics (io.granary.target.metrics): GET /metrics, answered before the router's signature check
      NodeMetrics metrics = TargetMetrics.register(new NodeMetrics(id), holder, cold, space, liveView(store), jobs,
          rebalancer);
      TargetMetrics.resilver(metrics, resilver, health);
      TargetMetrics.mirror(metrics, mirroring);
      TargetMetrics.validation(metrics, validationStats);
      TargetMetrics.ec(metrics, ec);
      // Readiness (GET /v1/health/ready), like /metrics answered before the router's signature check: probes do not sign
      Router ready = ReadinessHandler.route(router, holder, "target", Readiness.all(stopping,
          new TargetReadiness(holder, () -> store.mountpathSet().available().size())));
      server = HttpServer.start(cfg.host(), cfg.port(), MetricsHandler.route(ready, metrics), id, net, workers,
          cfg.http(), false, metrics.requests(), ClusterRequests.signedBy(signer));
      metrics.httpEdge(server);
    } catch (Exception e) {
      workers.shutdownGracefully(0, 0, TimeUnit.SECONDS);
      rebalancer.close();
      resilver.close();
      scrubs.close();
      mirroring.close();
      ec.close();
      health.close();
      disk.close();
      space.close();
      store.close();
      throw e;
    }
    String url = cfg.publicUrl() != null ? cfg.publicUrl() : "http://" + cfg.host() + ":" + server.port();
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "membership-" + id);
      t.setDaemon(true);
      return t;
    });
    ControlClient client = new ControlClient(Duration.ofSeconds(10), null, signer);
    ClusterJoiner joiner = new ClusterJoiner(holder, client, cfg.primaryUrl(),
        new NodeRegistration(id, NodeRole.TARGET, url, cfg.weight()), scheduler, cfg.rejoinCheck(), onFatal);
    ShortLeave leave = new ShortLeave(id, holder, client, cfg.primaryUrl(),
        () -> store.mountpaths().stream().map(Mountpath::systemDir).toList(), scheduler);
    return new TargetNode(id, url, store, disk, workers, server, scheduler, joiner, upstream, cold, remotes, space,
        jobs, rebalancer, resilver, health, urgent, stopping, leave, mirroring, scrubs, ec, holder, mountpaths,
        multipart, neighbors, client, cfg);
  }

  /**
   * The store's readable mountpaths as of each iteration, for metrics that iterate at scrape time: mountpaths come
   * and go at run time.
   */
  private static List<Mountpath> liveView(ObjectStore store) {
    return new java.util.AbstractList<>() {
      @Override
      public Mountpath get(int i) {
        return store.mountpaths().get(i);
      }

      @Override
      public int size() {
        return store.mountpaths().size();
      }

      @Override
      public java.util.Iterator<Mountpath> iterator() {
        return store.mountpaths().iterator();
      }
    };
  }

  /** A bucket's props now, or null when that incarnation of it is gone. */
  private static BucketProps currentBucket(ClusterMetadataHolder holder, BucketProps b) {
    BucketProps now = holder.snapshot().map(s -> s.buckets().buckets().get(b.bucket().key())).orElse(null);
    return now != null && now.id().equals(b.id()) ? now : null;
  }

  /** Bucket incarnations that left the bucket metadata lose their local data. */
  private static void destroyRemovedBuckets(String id, ClusterMetadataHolder.Snapshot old,
      ClusterMetadataHolder.Snapshot now, ObjectStore store, MultipartStore multipart, BoundedExecutor disk) {
    if (old == null) {
      return;
    }
    Map<String, BucketProps> current = now.buckets().buckets();
    for (BucketProps b : old.buckets().buckets().values()) {
      BucketProps still = current.get(b.bucket().key());
      if (still == null || !still.id().equals(b.id())) {
        disk.execute(() -> {
          try {
            multipart.sweep(List.of(b), Duration.ZERO); // its uploads go with it
            store.destroyBucket(b);
          } catch (IOException e) {
            log.error("node={} bucket={} destroying local data failed", id, b.bucket(), e);
          }
        });
      }
    }
  }

  /** Aborts the uploads a client abandoned longer than {@code ttl} ago. */
  private static void sweepUploads(String id, ClusterMetadataHolder holder, MultipartStore multipart, Duration ttl) {
    holder.snapshot().ifPresent(s -> {
      try {
        multipart.sweep(List.copyOf(s.buckets().buckets().values()), ttl);
      } catch (IOException | RuntimeException e) {
        log.warn("node={} sweeping abandoned multipart uploads failed: {}", id, e.toString());
      }
    });
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
   * A graceful stop (SIGTERM): readiness goes false at once; the target asks the primary for a short maintenance
   * without rebalance ({@link ShortLeave}, so a rolling restart moves no data); the listener stops accepting and the
   * requests in flight get up to {@code grace} to finish; then it closes. {@link Duration#ZERO}: close at once.
   */
  @Override
  public void stop(Duration grace) throws IOException {
    if (!stopping.begin()) {
      return;
    }
    if (!grace.isZero()) {
      long deadline = System.nanoTime() + grace.toNanos();
      log.info("node={} stopping gracefully: not ready, leaving for a restart, requests in flight get up to {}", id,
          grace);
      joiner.close(); // no registration races the leave
      leave.leave(grace.compareTo(LEAVE_TIMEOUT) < 0 ? grace : LEAVE_TIMEOUT);
      int open = server.drain(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
      if (open > 0) {
        log.warn("node={} {} connections still busy after the shutdown grace of {}: closing them", id, open, grace);
      }
    }
    close();
  }

  /** Stops serving, finishes in-flight disk work and closes storage cleanly. */
  @Override
  public void close() throws IOException {
    stopping.begin();
    leave.close();
    joiner.close();
    rebalancer.close(); // stops sending before connections and storage close
    resilver.close(); // stops moving before storage closes; the next start resumes
    scrubs.close(); // before mirroring: a scrub repairs through it
    mirroring.close(); // stops copying before storage closes; the start walk makes what is left
    ec.close(); // stops encoding before storage closes; the start walk encodes what is left
    health.close();
    scheduler.shutdownNow();
    server.close();
    upstream.close();
    workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
    jobs.close(); // stops issuing fills before the cold path closes
    cold.close();
    remotes.close();
    disk.close();
    urgent.close();
    space.close(); // waits for a running eviction and flushes access times: before the store closes
    store.close();
    log.info("node={} target stopped", id);
  }
}
