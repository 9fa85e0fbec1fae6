package io.granary.proxy.mountpath;

import io.granary.clustermap.Node;
import io.granary.clustermap.NodeRole;
import io.granary.common.api.ApiPaths;
import io.granary.common.control.ControlClient;
import io.granary.common.error.GatewayTimeoutException;
import io.granary.common.error.MethodNotAllowedException;
import io.granary.common.error.NodeNotFoundException;
import io.granary.common.error.ServiceUnavailableException;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.SmallBodyHandler;
import io.granary.common.membership.ClusterMetadataHolder;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.net.http.HttpTimeoutException;

/**
 * Relays a node's mountpath requests to that target, signed as every request between nodes, and returns its
 * answer unchanged (docs/resilver.md):
 *
 * <pre>
 * GET|POST /v1/cluster/nodes/ID/mountpaths                 to GET|POST /v1/mountpaths on target ID
 * DELETE   /v1/cluster/nodes/ID/mountpaths/PATH?mode=...    to DELETE /v1/mountpaths/PATH?mode=... on target ID
 * </pre>
 *
 * An unknown node (or a proxy) is 404; a target that does not answer is 503. The body goes through as it came: the
 * target checks it. Any proxy serves these (the target holds the state, not the primary).
 */
public final class NodeMountpathsHandler extends SmallBodyHandler {
  private static final int MAX_BODY = 64 * 1024;

  private final ClusterMetadataHolder cluster;
  private final ControlClient client;

  public NodeMountpathsHandler(ClusterMetadataHolder cluster, ControlClient client) {
    super(MAX_BODY);
    this.cluster = cluster;
    this.client = client;
  }

  /** Whether {@code rawPath} is {@code /v1/cluster/nodes/ID/mountpaths} or below it. */
  public static boolean matches(String rawPath) {
    return mountpathsAt(rawPath) > 0;
  }

  /** Where {@code /mountpaths} starts in the path, after the node id; -1 when it is not a mountpath path. */
  private static int mountpathsAt(String rawPath) {
    if (!rawPath.startsWith(ApiPaths.CLUSTER_NODES)) {
      return -1;
    }
    int slash = rawPath.indexOf('/', ApiPaths.CLUSTER_NODES.length());
    if (slash <= ApiPaths.CLUSTER_NODES.length()) {
      return -1;
    }
    String rest = rawPath.substring(slash);
    boolean ok = rest.equals(ApiPaths.NODE_MOUNTPATHS) || rest.startsWith(ApiPaths.NODE_MOUNTPATHS + "/");
    return ok ? slash : -1;
  }

  @Override
  public void onRequest(HttpExchange ex) throws Exception {
    String path = ex.path().raw();
    String rest = path.substring(mountpathsAt(path)); // "/mountpaths" or "/mountpaths/PATH"
    HttpMethod m = ex.method();
    boolean collection = rest.equals(ApiPaths.NODE_MOUNTPATHS) || rest.equals(ApiPaths.NODE_MOUNTPATHS + "/");
    if (collection ? !(m.equals(HttpMethod.GET) || m.equals(HttpMethod.POST)) : !m.equals(HttpMethod.DELETE)) {
      throw new MethodNotAllowedException(m, path);
    }
    target(ex); // 404 before the body is read
    super.onRequest(ex);
  }

  private Node target(HttpExchange ex) {
    String path = ex.path().raw();
    String id = io.granary.common.http.RequestPath.decode(
        path.substring(ApiPaths.CLUSTER_NODES.length(), mountpathsAt(path)));
    Node n = cluster.require().map().node(id).orElse(null);
    if (n == null || n.role() != NodeRole.TARGET) {
      throw new NodeNotFoundException(id);
    }
    return n;
  }

  @Override
  protected void handle(HttpExchange ex, byte[] body) {
    Node n = target(ex);
    String path = ex.path().raw();
    String rest = path.substring(mountpathsAt(path) + ApiPaths.NODE_MOUNTPATHS.length()); // "" or "/PATH"
    String query = ex.path().rawQuery();
    String url = n.url() + ApiPaths.MOUNTPATHS + rest + (query == null || query.isEmpty() ? "" : "?" + query);
    String type = ex.header(HttpHeaderNames.CONTENT_TYPE);
    client.forward(ex.method().name(), url, body, body.length == 0 ? null : type == null ? "application/json" : type)
        .whenComplete((resp, err) -> {
          if (err != null) {
            Throwable cause = ControlClient.cause(err);
            ex.sendError(cause instanceof HttpTimeoutException // it took the request and did not answer in time
                ? new GatewayTimeoutException("target " + n.id() + " did not answer in time: " + cause.getMessage())
                : new ServiceUnavailableException(ServiceUnavailableException.TARGET_OFFLINE, "target " + n.id()
                    + " did not answer: " + cause, 5));
            return;
          }
          FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
              HttpResponseStatus.valueOf(resp.statusCode()), Unpooled.wrappedBuffer(resp.body()));
          resp.headers().firstValue("content-type").ifPresent(v -> r.headers().set(HttpHeaderNames.CONTENT_TYPE, v));
          resp.headers().firstValue("retry-after").ifPresent(v -> r.headers().set(HttpHeaderNames.RETRY_AFTER, v));
          HttpUtil.setContentLength(r, resp.body().length);
          ex.respond(r);
        });
  }
}
