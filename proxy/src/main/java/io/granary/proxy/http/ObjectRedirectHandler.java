package io.granary.proxy.http;

import io.granary.clustermap.Node;
import io.granary.common.auth.ClusterSigner;
import io.granary.common.api.ClusterQueryParams;
import io.granary.common.api.GranaryHeaders;
import io.granary.common.api.ObjectAddress;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.membership.ObjectOwner;

/**
 * {@code GET|HEAD|PUT|DELETE /v1/objects/BUCKET/OBJECT}: answers 307 to the object's HRW owner, with the
 * original path and query, signed with the cluster secret when there is one (targets refuse unsigned requests). The
 * proxy never touches object bytes. An owner that cannot answer now gets 503 with Retry-After
 * ({@link ObjectOwner}), never a redirect elsewhere (which would answer a wrong 404 or write a misplaced object),
 * except for a read of an erasure-coded bucket's object, which a slice holder can rebuild
 * ({@link ObjectOwner#forRead}).
 */
final class ObjectRedirectHandler implements RequestHandler {
  /** How long a signed redirect stays valid: long enough for a client to follow it, short enough not to be reused. */
  static final long REDIRECT_VALID_SECONDS = 300;

  private final ClusterMetadataHolder cluster;
  private final ClusterSigner signer; // null without a cluster secret: targets then take unsigned requests

  ObjectRedirectHandler(ClusterMetadataHolder cluster, ClusterSigner signer) {
    this.cluster = cluster;
    this.signer = signer;
  }

  @Override
  public void onRequest(HttpExchange ex) {
    ObjectAddress addr = ObjectAddress.parse(ex);
    var bucket = cluster.requireBucket(addr.bucket());
    ClusterMetadataHolder.Snapshot s = cluster.require();
    boolean read = ex.method().equals(io.netty.handler.codec.http.HttpMethod.GET)
        || ex.method().equals(io.netty.handler.codec.http.HttpMethod.HEAD);
    // a read of an erasure-coded object whose owner is offline goes to a slice holder, which rebuilds it
    Node owner = read ? ObjectOwner.forRead(s, bucket, addr.name()) : ObjectOwner.require(s, addr.bucket(),
        addr.name());
    String query = ClusterQueryParams.without(ex.path().rawQuery()); // a client's would be forged
    // The map version this redirect was decided by: a target that holds an older one waits for it first.
    String uri = ex.path().raw() + "?" + (query.isEmpty() ? "" : query + "&") + GranaryHeaders.MAP_VERSION_PARAM + "="
        + s.map().version();
    if (signer != null) {
      uri = signer.signUrl(ex.method().name(), uri, REDIRECT_VALID_SECONDS);
    }
    ex.sendRedirect(owner.url() + uri);
  }
}
