package io.granary.proxy.http;

import io.granary.common.api.ApiPaths;
import io.granary.common.api.ObjectAddress;
import io.granary.common.control.ControlClient;
import io.granary.common.error.ConflictException;
import io.granary.common.error.MethodNotAllowedException;
import io.granary.common.error.RouteNotFoundException;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.common.http.Router;
import io.granary.common.membership.ClusterMapHandler;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.membership.HealthHandler;
import io.granary.common.membership.MetasyncHandler;
import io.granary.proxy.listing.ListingMerger;
import io.granary.proxy.membership.ClusterAuthority;
import io.granary.proxy.membership.MetadataPusher;
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
 * GET    /v1/buckets/BUCKET?prefix&amp;start-after&amp;limit&amp;token   list objects, merged across targets
 * HEAD   /v1/buckets/BUCKET                       200 if the bucket exists
 * GET    /v1/cluster/map                          the cluster map
 * POST   /v1/cluster/join                         node registration        (primary; others forward)
 * PUT    /v1/cluster/nodes/ID                     set a node's state       (primary; others forward)
 * PUT    /v1/metasync                             metadata push            (non-primary proxies)
 * GET    /v1/health                               liveness
 * </pre>
 */
public final class ProxyRouter implements Router {
  private final ClusterMetadataHolder cluster;
  private final ClusterAuthority authority; // null on a non-primary proxy
  private final MetadataPusher pusher;      // null on a non-primary proxy
  private final String primaryUrl;          // null on the primary
  private final ControlClient client;
  private final ListingMerger lister;
  private final BoundedExecutor control;

  public ProxyRouter(ClusterMetadataHolder cluster, ClusterAuthority authority, MetadataPusher pusher,
      String primaryUrl, ControlClient client, BoundedExecutor control) {
    this.cluster = cluster;
    this.authority = authority;
    this.pusher = pusher;
    this.primaryUrl = primaryUrl;
    this.client = client;
    this.lister = new ListingMerger(client);
    this.control = control;
  }

  private boolean primary() {
    return authority != null;
  }

  @Override
  public RequestHandler route(HttpExchange ex) {
    String path = ex.path().raw();
    HttpMethod m = ex.method();
    if (path.startsWith(ApiPaths.OBJECTS)) {
      if (m.equals(HttpMethod.GET) || m.equals(HttpMethod.HEAD) || m.equals(HttpMethod.PUT)
          || m.equals(HttpMethod.DELETE)) {
        return new ObjectRedirectHandler(cluster);
      }
    } else if (path.equals(ApiPaths.BUCKETS) || path.equals(ApiPaths.BUCKETS_SLASH)) {
      if (m.equals(HttpMethod.GET)) {
        return new BucketsHandler(cluster);
      }
    } else if (path.startsWith(ApiPaths.BUCKETS_SLASH)) {
      if (m.equals(HttpMethod.GET)) {
        return new ObjectListHandler(cluster, lister);
      } else if (m.equals(HttpMethod.HEAD)) {
        return exchange -> {
          cluster.requireBucket(ObjectAddress.bucket(
              exchange.path().decodedAfter(ApiPaths.BUCKETS_SLASH), exchange.queryParam("provider")));
          exchange.sendHead(HttpResponseStatus.OK, null);
        };
      } else if (m.equals(HttpMethod.POST)) {
        return primary() ? new BucketCreateHandler(authority, pusher, control) : forward();
      } else if (m.equals(HttpMethod.DELETE)) {
        return primary() ? new BucketDeleteHandler(cluster, authority, pusher, lister, control) : forward();
      }
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
        return primary() ? new JoinHandler(authority, control) : forward();
      }
    } else if (path.startsWith(ApiPaths.CLUSTER_NODES) && path.length() > ApiPaths.CLUSTER_NODES.length()) {
      if (m.equals(HttpMethod.PUT)) {
        return primary() ? new NodeStateHandler(authority, control) : forward();
      }
    } else if (path.equals(ApiPaths.METASYNC)) {
      if (m.equals(HttpMethod.PUT)) {
        if (primary()) {
          throw new ConflictException(ConflictException.STALE_VERSION,
              "this proxy is the primary; it writes cluster metadata and takes no pushes");
        }
        return new MetasyncHandler(cluster, control);
      }
    } else {
      throw new RouteNotFoundException(path);
    }
    throw new MethodNotAllowedException(m, path);
  }

  private RequestHandler forward() {
    return new PrimaryForwardHandler(client, primaryUrl);
  }
}
