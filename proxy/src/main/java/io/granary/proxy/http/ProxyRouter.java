package io.granary.proxy.http;

import io.granary.common.api.ApiPaths;
import io.granary.common.error.AccessDeniedException;
import io.granary.proxy.ProxyContext;
import io.granary.proxy.jobs.ProxyJobRoutes;
import io.granary.proxy.membership.ClusterAuthority;
import io.granary.proxy.membership.DeadTargetRemover;
import io.granary.proxy.membership.PrimaryRole;
import io.granary.proxy.mountpath.NodeMountpathsHandler;
import io.granary.proxy.rebalance.NodeStatusHandler;
import io.granary.common.api.ObjectAddress;
import io.granary.common.error.ConflictException;
import io.granary.common.error.MethodNotAllowedException;
import io.granary.common.error.RouteNotFoundException;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.common.http.Router;
import io.granary.common.membership.ClusterMapHandler;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.membership.HealthHandler;
import io.granary.common.membership.MetasyncHandler;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * The proxy's native API (docs/http-api.md):
 *
 * <pre>
 * GET|HEAD|PUT|DELETE /v1/objects/BUCKET/OBJECT   307 to the owning target
 * GET    /v1/buckets                              list buckets
 * POST   /v1/buckets/BUCKET                       create a bucket           (primary; others forward)
 * DELETE /v1/buckets/BUCKET[?force=true]          delete a bucket           (primary; others forward)
 * PATCH  /v1/buckets/BUCKET                       set protection properties (primary; others forward)
 * GET    /v1/buckets/BUCKET?prefix&amp;start-after&amp;limit&amp;token   list objects, merged across targets
 * HEAD   /v1/buckets/BUCKET                       200 if the bucket exists
 * GET    /v1/cluster/map                          the cluster map
 * POST   /v1/cluster/join                         node registration        (primary; others forward)
 * GET    /v1/cluster/nodes/ID                     a node's state, what it holds, rebalance progress, safe to remove
 * PUT    /v1/cluster/nodes/ID                     set a node's state or weight (primary; others forward)
 * GET|POST /v1/cluster/nodes/ID/mountpaths, DELETE .../mountpaths/PATH   a target's mountpaths (relayed to it)
 * PUT    /v1/metasync                             metadata push            (non-primary proxies)
 * GET    /v1/health                               liveness
 * GET    /v1/health/ready                         readiness, answered before this router (ReadinessHandler)
 * GET    /metrics                                 Prometheus metrics, answered before this router (MetricsHandler)
 * POST|GET /v1/jobs, GET|DELETE /v1/jobs/ID, POST /v1/jobs/ID/retry   prefetch and rebalance jobs (docs/jobs.md)
 * </pre>
 */
public final class ProxyRouter implements Router {
  private final ProxyContext ctx;
  private final ClusterMetadataHolder cluster;
  private final Router s3; // everything outside /v1/

  // ---- prefetch jobs (io.granary.proxy.jobs)
  private final ProxyJobRoutes jobs; // null: no job endpoints

  public ProxyRouter(ProxyContext ctx, Router s3) {
    this(ctx, s3, null);
  }

  public ProxyRouter(ProxyContext ctx, Router s3, ProxyJobRoutes jobs) {
    this.jobs = jobs;
    // ---- end prefetch jobs
    this.ctx = ctx;
    this.cluster = ctx.cluster();
    this.s3 = s3;
  }

  private boolean primary() {
    return ctx.primary();
  }

  /**
   * The native API takes the same SigV4 credentials as S3. Requests signed by a node of this cluster (admin
   * changes a non-primary proxy forwards after checking its client) pass too.
   */
  private void authenticateNative(HttpExchange ex) {
    if (ctx.signer() != null && ctx.signer().verify(ex.method().name(), ex.request().uri(), ex.request().headers())) {
      return;
    }
    ctx.auth().authenticate(ex);
  }

  /** Requests only nodes of this cluster may send (joins, metadata pushes) must carry its signature. */
  private void requireClusterSignature(HttpExchange ex) {
    if (ctx.signer() != null
        && !ctx.signer().verify(ex.method().name(), ex.request().uri(), ex.request().headers())) {
      throw new AccessDeniedException("this endpoint takes only requests signed by a node of this cluster");
    }
  }

  @Override
  public RequestHandler route(HttpExchange ex) {
    String path = ex.path().raw();
    HttpMethod m = ex.method();
    if (!path.startsWith("/v1/") && !path.equals("/v1")) {
      return s3.route(ex);
    }
    if (ctx.nativeAuth() && !path.equals(ApiPaths.HEALTH) && !path.equals(ApiPaths.CLUSTER_MAP)
        && !path.equals(ApiPaths.CLUSTER_JOIN) && !path.equals(ApiPaths.METASYNC)) {
      authenticateNative(ex);
    }
    if (path.startsWith(ApiPaths.OBJECTS)) {
      if (m.equals(HttpMethod.GET) || m.equals(HttpMethod.HEAD) || m.equals(HttpMethod.PUT)
          || m.equals(HttpMethod.DELETE)) {
        return new ObjectRedirectHandler(cluster, ctx.signer());
      }
    } else if (path.equals(ApiPaths.BUCKETS) || path.equals(ApiPaths.BUCKETS_SLASH)) {
      if (m.equals(HttpMethod.GET)) {
        return new BucketsHandler(cluster);
      }
    } else if (path.startsWith(ApiPaths.BUCKETS_SLASH)) {
      if (m.equals(HttpMethod.GET)) {
        return new ObjectListHandler(cluster, ctx.lister());
      } else if (m.equals(HttpMethod.HEAD)) {
        return exchange -> {
          cluster.requireBucket(ObjectAddress.bucket(
              exchange.path().decodedAfter(ApiPaths.BUCKETS_SLASH), exchange.queryParam("provider")));
          exchange.sendHead(HttpResponseStatus.OK, null);
        };
      } else if (m.equals(HttpMethod.POST)) {
        PrimaryRole.Term t = ctx.term();
        return t != null ? new BucketCreateHandler(t.authority(), t.pusher(), protectionCheck(), ctx.control())
            : forward();
      } else if (m.equals(HttpMethod.PATCH)) {
        PrimaryRole.Term t = ctx.term();
        return t != null ? new BucketPropsHandler(cluster, t.authority(), t.pusher(), protectionCheck(),
            ctx.control()) : forward();
      } else if (m.equals(HttpMethod.PUT) && BucketAclHandler.matches(ex)) {
        PrimaryRole.Term t = ctx.term();
        return t != null ? new BucketAclHandler(t.authority(), t.pusher(), ctx.control()) : forward();
      } else if (m.equals(HttpMethod.DELETE)) {
        PrimaryRole.Term t = ctx.term();
        return t != null ? new BucketDeleteHandler(cluster, t.authority(), t.pusher(), ctx.lister(), ctx.control())
            : forward();
      }
    } else if (jobs != null && ApiPaths.isJobs(path)) { // any proxy serves jobs: targets hold their state
      return jobs.route(ex);
    } else if (path.equals(ApiPaths.HEALTH)) {
      if (m.equals(HttpMethod.GET) || m.equals(HttpMethod.HEAD)) {
        return new HealthHandler(cluster, "proxy");
      }
    } else if (path.equals(ApiPaths.CLUSTER_MAP)) {
      if (m.equals(HttpMethod.GET)) {
        return new ClusterMapHandler(cluster);
      }
    } else if (path.equals(ApiPaths.CLUSTER_JOIN)) {
      if (m.equals(HttpMethod.POST)) {
        requireClusterSignature(ex);
        ClusterAuthority a = ctx.authority();
        return a != null ? new JoinHandler(a, ctx.control()) : forward();
      }
    } else if (path.startsWith(ApiPaths.CLUSTER_NODES) && path.length() > ApiPaths.CLUSTER_NODES.length()) {
      if (NodeMountpathsHandler.matches(path)) { // a target's disks (io.granary.proxy.mountpath)
        return new NodeMountpathsHandler(cluster, ctx.client());
      }
      if (m.equals(HttpMethod.PUT)) {
        ClusterAuthority a = ctx.authority();
        return a != null ? new NodeStateHandler(a, ctx.control()) : forward();
      } else if (m.equals(HttpMethod.DELETE)) {
        ClusterAuthority a = ctx.authority();
        return a != null ? new NodeRemoveHandler(new DeadTargetRemover(cluster, a, ctx.client(), ctx.control()))
            : forward();
      } else if (m.equals(HttpMethod.GET)) {
        return new NodeStatusHandler(cluster, ctx.client());
      }
    } else if (path.equals(ApiPaths.METASYNC)) {
      if (m.equals(HttpMethod.PUT)) {
        if (primary()) {
          throw new ConflictException(ConflictException.STALE_VERSION,
              "this proxy is the primary; it writes cluster metadata and takes no pushes");
        }
        requireClusterSignature(ex);
        return new MetasyncHandler(cluster, ctx.control());
      }
    } else {
      throw new RouteNotFoundException(path);
    }
    throw new MethodNotAllowedException(m, path);
  }

  private ProtectionCheck protectionCheck() {
    return new ProtectionCheck(cluster, ctx.client(), ctx.lister());
  }

  private RequestHandler forward() {
    return new PrimaryForwardHandler(ctx.client(), ctx.primaryUrl());
  }
}
