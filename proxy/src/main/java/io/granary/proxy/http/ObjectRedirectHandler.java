package io.granary.proxy.http;

import io.granary.clustermap.Node;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.hrw.PlacementKey;
import io.granary.common.auth.ClusterSigner;
import io.granary.common.api.ObjectAddress;
import io.granary.common.error.ServiceUnavailableException;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.common.membership.ClusterMetadataHolder;

/**
 * {@code GET|HEAD|PUT|DELETE /v1/objects/BUCKET/OBJECT}: answers 307 to the object's HRW owner, with the
 * original path and query, signed with the cluster secret when there is one (targets refuse unsigned requests). The
 * proxy never touches object bytes. An offline owner gets 503 with Retry-After,
 * never a redirect elsewhere (which would answer a wrong 404 or write a misplaced object).
 */
final class ObjectRedirectHandler implements RequestHandler {
  static final int OFFLINE_RETRY_SECONDS = 5;

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
    cluster.requireBucket(addr.bucket());
    ClusterMetadataHolder.Snapshot s = cluster.require();
    Node owner = s.placement().owner(PlacementKey.digest(addr.bucket(), addr.name())).orElseThrow(() ->
        new ServiceUnavailableException(ServiceUnavailableException.NO_TARGETS,
            "no target is in the cluster yet (map v" + s.map().version() + ")", OFFLINE_RETRY_SECONDS));
    if (owner.state() == NodeState.OFFLINE) {
      throw new ServiceUnavailableException(ServiceUnavailableException.TARGET_OFFLINE, "target " + owner.id()
          + " that owns '" + addr.name() + "' is offline; retry when it is back", OFFLINE_RETRY_SECONDS);
    }
    String query = ex.path().rawQuery();
    String uri = ex.path().raw() + (query.isEmpty() ? "" : "?" + query);
    if (signer != null) {
      uri = signer.signUrl(ex.method().name(), uri, REDIRECT_VALID_SECONDS);
    }
    ex.sendRedirect(owner.url() + uri);
  }
}
