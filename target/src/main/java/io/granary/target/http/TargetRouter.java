package io.granary.target.http;

import io.granary.common.api.ApiPaths;
import io.granary.common.auth.ClusterSigner;
import io.granary.common.error.AccessDeniedException;
import io.granary.common.error.MethodNotAllowedException;
import io.granary.common.error.RouteNotFoundException;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.AfterBody;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.common.http.Router;
import io.granary.common.membership.ClusterMapHandler;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.membership.HealthHandler;
import io.granary.common.membership.MetasyncHandler;
import io.granary.target.jobs.TargetJobRoutes;
import io.granary.target.multipart.MultipartStore;
import io.granary.target.s3.DirectS3Reads;
import io.granary.target.s3.S3TargetRoutes;
import io.granary.target.storage.ObjectStore;
import io.netty.handler.codec.http.HttpMethod;

/**
 * The target's endpoints:
 *
 * <pre>
 * GET|HEAD|PUT|DELETE /v1/objects/BUCKET/OBJECT   object data (clients arrive here by the proxy's 307)
 * GET|HEAD|PUT|DELETE /s3/BUCKET/KEY              the same in S3 form, relayed by a proxy
 * GET|HEAD /s3/BUCKET/KEY                          signed by a client with an S3 key: {@link DirectS3Reads}
 * GET  /v1/buckets/BUCKET                          this target's part of a listing
 * GET  /v1/buckets/BUCKET?uploads                  this target's multipart uploads in progress
 * PUT  /v1/metasync                                cluster metadata pushed by the primary
 * GET  /v1/cluster/map                             the cluster map this target holds
 * GET  /v1/health                                  liveness
 * GET  /metrics                                    Prometheus metrics, answered before this router (MetricsHandler)
 * POST|GET /v1/jobs, GET|DELETE /v1/jobs/ID        prefetch jobs, from proxies (io.granary.target.jobs)
 * ...                                              what feature packages mount (rebalance: /v1/transport/, /v1/rebalance)
 * </pre>
 */
public final class TargetRouter implements Router {
  private final ClusterMetadataHolder cluster;
  private final ObjectStore store;
  private final BoundedExecutor disk;
  private final ObjectApi nativeApi;
  private final S3TargetRoutes s3;
  private final MultipartStore multipart;
  private final ClusterSigner signer; // null: no intra-cluster authentication
  private final ObjectHandlers handlers;
  private DirectS3Reads direct; // null: S3 requests without a cluster signature are refused as any other

  // ---- prefetch jobs (io.granary.target.jobs)
  private final TargetJobRoutes jobs; // null: this target serves no job endpoints
  private final java.util.List<Mount> mounts = new java.util.concurrent.CopyOnWriteArrayList<>();

  /** A feature's router for every path starting with {@code prefix}. */
  public record Mount(String prefix, Router router) {
  }

  /** Serves S3 reads that clients sign themselves and send here directly, with {@code reads}. */
  public TargetRouter directS3(DirectS3Reads reads) {
    this.direct = reads;
    return this;
  }

  /** Serves every path starting with {@code prefix} with {@code router} (the node's root assembles features). */
  public TargetRouter mount(String prefix, Router router) {
    mounts.add(new Mount(prefix, router));
    return this;
  }

  public TargetRouter(ClusterMetadataHolder cluster, ObjectStore store, BoundedExecutor disk, S3TargetRoutes s3,
      MultipartStore multipart, ClusterSigner signer, ObjectHandlers handlers) {
    this(cluster, store, disk, s3, multipart, signer, handlers, null);
  }

  public TargetRouter(ClusterMetadataHolder cluster, ObjectStore store, BoundedExecutor disk, S3TargetRoutes s3,
      MultipartStore multipart, ClusterSigner signer, ObjectHandlers handlers, TargetJobRoutes jobs) {
    this.jobs = jobs;
    // ---- end prefetch jobs
    this.handlers = handlers;
    this.signer = signer;
    this.cluster = cluster;
    this.store = store;
    this.disk = disk;
    this.nativeApi = new NativeObjectApi(cluster);
    this.s3 = s3;
    this.multipart = multipart;
  }

  private static final String S3_OBJECTS = "/s3/";

  /** GET, HEAD and DELETE run only once a body sent with them has arrived whole: see {@link AfterBody}. */
  private RequestHandler objectHandler(HttpExchange ex, ObjectApi api, HttpMethod m) {
    if (m.equals(HttpMethod.GET) || m.equals(HttpMethod.HEAD)) {
      return AfterBody.of(ex, handlers.get(api));
    } else if (m.equals(HttpMethod.PUT)) {
      return handlers.put(api);
    } else if (m.equals(HttpMethod.DELETE)) {
      return AfterBody.of(ex, handlers.delete(api));
    }
    return null;
  }

  @Override
  public RequestHandler route(HttpExchange ex) {
    String path = ex.path().raw();
    HttpMethod m = ex.method();
    if (signer != null && !path.equals(ApiPaths.HEALTH)
        && !signer.verify(m.name(), ex.request().uri(), ex.request().headers())) {
      if (path.startsWith(S3_OBJECTS)) {
        ex.useErrorRenderer(s3.api().errors());
        if (direct != null) {
          return direct.route(ex);
        }
      }
      throw new AccessDeniedException("targets serve only requests signed by a proxy of this cluster; "
          + "send requests to a proxy");
    }
    for (Mount mount : mounts) {
      if (path.startsWith(mount.prefix())) {
        return mount.router().route(ex);
      }
    }
    if (path.startsWith(ApiPaths.OBJECTS)) {
      RequestHandler h = objectHandler(ex, nativeApi, m);
      if (h != null) {
        return h;
      }
    } else if (path.startsWith(S3_OBJECTS)) {
      ex.useErrorRenderer(s3.api().errors());
      RequestHandler h = s3.route(ex);
      if (h != null) {
        return h;
      }
    } else if (path.startsWith(ApiPaths.BUCKETS_SLASH) && path.length() > ApiPaths.BUCKETS_SLASH.length()) {
      if (m.equals(HttpMethod.GET)) {
        return ex.queryParams().containsKey("uploads") ? new LocalUploadsHandler(cluster, multipart, disk)
            : new LocalListHandler(cluster, store, disk);
      }
    } else if (jobs != null && ApiPaths.isJobs(path)) { // prefetch jobs, from proxies
      return jobs.route(ex);
    } else if (path.equals(ApiPaths.HEALTH)) {
      if (m.equals(HttpMethod.GET) || m.equals(HttpMethod.HEAD)) {
        return new HealthHandler(cluster, "target");
      }
    } else if (path.equals(ApiPaths.CLUSTER_MAP)) {
      if (m.equals(HttpMethod.GET)) {
        return new ClusterMapHandler(cluster);
      }
    } else if (path.equals(ApiPaths.METASYNC)) {
      if (m.equals(HttpMethod.PUT)) {
        return new MetasyncHandler(cluster, disk);
      }
    } else {
      throw new RouteNotFoundException(path);
    }
    throw new MethodNotAllowedException(m, path);
  }
}
