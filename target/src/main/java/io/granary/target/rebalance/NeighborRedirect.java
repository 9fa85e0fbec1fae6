package io.granary.target.rebalance;

import io.granary.clustermap.Node;
import io.granary.common.api.GranaryHeaders;
import io.granary.common.auth.ClusterSigner;
import io.granary.common.http.HttpExchange;
import io.granary.common.error.ApiException;
import io.granary.common.error.ObjectNotFoundException;
import io.granary.common.http.ErrorRenderer;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.util.ArrayList;
import java.util.List;

/**
 * Get-from-neighbor by redirect: a native client that reached this owner by a proxy's 307 (its URL carries the map
 * version, {@link GranaryHeaders#MAP_VERSION_PARAM}) and asks for an object still on its previous owner is sent
 * there with another 307, while the holder pushes the object here in the background. The client reads from a
 * target that has the object on disk and a warm JVM, at the cost of one more redirect; nothing passes through this
 * target, which on a join has only just started. The holder answers from what it holds ({@link #NEIGHBOR_PARAM},
 * as {@link GranaryHeaders#NEIGHBOR_READ} does for relayed reads); if the object has left it meanwhile (the push
 * committed here and the source copy went), it sends the client back here once ({@link #MISS_PARAM}), where the
 * object now is: at most two extra hops, never a loop. Requests relayed by a proxy (S3) or by a target are never
 * redirected: their sender does not follow redirects.
 */
final class NeighborRedirect {
  /** On a redirect to the holder: the owner that sent the client, so the holder answers only from what it holds. */
  static final String NEIGHBOR_PARAM = "granary-neighbor";
  /** On a redirect back from a holder that no longer has the object: the owner must not redirect again. */
  static final String MISS_PARAM = "granary-neighbor-miss";
  /** How long a redirect stays valid, as a proxy's. */
  static final long VALID_SECONDS = 300;

  private final String self;
  private final ClusterSigner signer; // null without a cluster secret

  NeighborRedirect(String self, ClusterSigner signer) {
    this.self = self;
    this.signer = signer;
  }

  /** Whether this read may be answered with a redirect to the holder: a GET or HEAD that followed a proxy's 307. */
  static boolean applies(HttpExchange ex) {
    HttpMethod m = ex.method();
    return (m.equals(HttpMethod.GET) || m.equals(HttpMethod.HEAD))
        && ex.queryParam(GranaryHeaders.MAP_VERSION_PARAM) != null
        && ex.queryParam(MISS_PARAM) == null && ex.queryParam(NEIGHBOR_PARAM) == null;
  }

  /** Whether this read was redirected here by the object's owner (see {@link #toHolder}). */
  static boolean isRedirectedRead(HttpExchange ex) {
    return ex.queryParam(NEIGHBOR_PARAM) != null;
  }

  /** The owner that redirected this read here (the value of {@link #NEIGHBOR_PARAM}). */
  static String owner(HttpExchange ex) {
    return ex.queryParam(NEIGHBOR_PARAM);
  }

  /** Sends the client to {@code holder} for this read. */
  void toHolder(HttpExchange ex, Node holder) {
    ex.sendRedirect(holder.url() + signed(ex, NEIGHBOR_PARAM, NEIGHBOR_PARAM + "=" + self));
  }

  /** Sends the client back to {@code owner}, which now holds the object (or answers as if no target had it). */
  void backToOwner(HttpExchange ex, Node owner) {
    ex.sendRedirect(owner.url() + signed(ex, NEIGHBOR_PARAM, MISS_PARAM + "=1"));
  }

  /**
   * Renders errors as {@code inner} does, except the object's absence: the client goes back to {@code owner}
   * instead. A holder's read can find the object gone after all (the push committed and removed it between the
   * lookup and the open), and a redirected client must not see that as a 404.
   */
  ErrorRenderer backToOwnerOnMiss(HttpExchange ex, Node owner, ErrorRenderer inner) {
    String location = owner.url() + signed(ex, NEIGHBOR_PARAM, MISS_PARAM + "=1");
    return new ErrorRenderer() {
      @Override
      public FullHttpResponse render(ApiException e, HttpExchange exchange) {
        if (!(e instanceof ObjectNotFoundException)) {
          return inner.render(e, exchange);
        }
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
            HttpResponseStatus.TEMPORARY_REDIRECT, Unpooled.EMPTY_BUFFER);
        r.headers().set(HttpHeaderNames.LOCATION, location);
        HttpUtil.setContentLength(r, 0);
        return r;
      }

      @Override
      public String code(ApiException e) {
        return e instanceof ObjectNotFoundException ? null : inner.code(e); // a redirect, not an error
      }
    };
  }

  /** The request's target without its signature and parameter {@code drop}, with {@code add}, signed again. */
  private String signed(HttpExchange ex, String drop, String add) {
    String uri = ClusterSigner.stripUrlSignature(ex.request().uri());
    int q = uri.indexOf('?');
    List<String> params = new ArrayList<>();
    if (q >= 0) {
      for (String p : uri.substring(q + 1).split("&")) {
        if (!p.isEmpty() && !p.equals(drop) && !p.startsWith(drop + "=")) {
          params.add(p);
        }
      }
    }
    params.add(add);
    String next = (q < 0 ? uri : uri.substring(0, q)) + "?" + String.join("&", params);
    return signer == null ? next : signer.signUrl(ex.method().name(), next, VALID_SECONDS);
  }
}
