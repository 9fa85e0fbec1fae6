package io.granary.proxy;

import io.granary.common.auth.ClusterSigner;
import io.granary.common.control.ControlClient;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.client.UpstreamPool;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.s3.auth.RequestAuthenticator;
import io.granary.proxy.listing.ListingMerger;
import io.granary.proxy.membership.ClusterAuthority;
import io.granary.proxy.membership.MetadataPusher;
import io.granary.proxy.membership.PrimaryRole;
import java.time.Duration;

/**
 * What the proxy's request handlers share: cluster metadata, the primary's authority (only on the primary), the
 * clients to other nodes and the pool for blocking work.
 *
 * @param cluster this proxy's copy of cluster metadata
 * @param role whether this proxy is the primary now (its authority and pusher), else where the primary is
 * @param client control-plane client (joins, listings, forwarding), signing when the cluster has a secret
 * @param control bounded pool for blocking admin work
 * @param signer the cluster's request signer; null without a cluster secret
 * @param upstream pooled connections to targets for stream-through
 * @param lister merged listings across targets
 * @param auth who sent a request: SigV4 verification, or anonymous when allowed
 * @param nativeAuth whether the native /v1/ API requires SigV4 too
 * @param s3Redirect answer S3 object GET/HEAD with 307 to a signed target URL (opt-in)
 * @param upstreamHeadTimeout how long a request relayed whole to a target waits for its answer head (then 504)
 */
public record ProxyContext(ClusterMetadataHolder cluster, PrimaryRole role, ControlClient client,
    BoundedExecutor control, ClusterSigner signer, UpstreamPool upstream, ListingMerger lister,
    RequestAuthenticator auth, boolean nativeAuth, boolean s3Redirect, Duration upstreamHeadTimeout) {

  /** Whether this proxy is the primary now. */
  public boolean primary() {
    return role.primary();
  }

  /** This proxy's term as primary, or null; take it once per request, as the role may move. */
  public PrimaryRole.Term term() {
    return role.term();
  }

  /** The metadata authority; null on a non-primary proxy. */
  public ClusterAuthority authority() {
    PrimaryRole.Term t = role.term();
    return t == null ? null : t.authority();
  }

  /** Pushes metadata to nodes; null on a non-primary proxy. */
  public MetadataPusher pusher() {
    PrimaryRole.Term t = role.term();
    return t == null ? null : t.pusher();
  }

  /** Where to forward metadata changes; null on the primary, or while no primary is known. */
  public String primaryUrl() {
    return role.primaryUrl();
  }
}
