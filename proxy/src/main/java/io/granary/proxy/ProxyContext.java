package io.granary.proxy;

import io.granary.common.auth.ClusterSigner;
import io.granary.common.control.ControlClient;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.client.UpstreamPool;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.proxy.auth.RequestAuthenticator;
import io.granary.proxy.listing.ListingMerger;
import io.granary.proxy.membership.ClusterAuthority;
import io.granary.proxy.membership.MetadataPusher;

/**
 * What the proxy's request handlers share: cluster metadata, the primary's authority (only on the primary), the
 * clients to other nodes and the pool for blocking work.
 *
 * @param cluster this proxy's copy of cluster metadata
 * @param authority the metadata authority; null on a non-primary proxy
 * @param pusher pushes metadata to nodes; null on a non-primary proxy
 * @param primaryUrl where to forward metadata changes; null on the primary
 * @param client control-plane client (joins, listings, forwarding), signing when the cluster has a secret
 * @param control bounded pool for blocking admin work
 * @param signer the cluster's request signer; null without a cluster secret
 * @param upstream pooled connections to targets for stream-through
 * @param lister merged listings across targets
 * @param auth who sent a request: SigV4 verification, or anonymous when allowed
 * @param nativeAuth whether the native /v1/ API requires SigV4 too
 * @param s3Redirect answer S3 object GET/HEAD with 307 to a signed target URL (opt-in)
 */
public record ProxyContext(ClusterMetadataHolder cluster, ClusterAuthority authority, MetadataPusher pusher,
    String primaryUrl, ControlClient client, BoundedExecutor control, ClusterSigner signer, UpstreamPool upstream,
    ListingMerger lister, RequestAuthenticator auth, boolean nativeAuth, boolean s3Redirect) {

  /** Whether this proxy is the primary. */
  public boolean primary() {
    return authority != null;
  }
}
