package io.granary.target.s3;

import io.granary.clustermap.Node;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.common.http.AfterBody;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.common.http.RequestPath;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.membership.ObjectOwner;
import io.granary.common.s3.S3ApiException;
import io.granary.common.s3.auth.CredentialStore;
import io.granary.common.s3.auth.RequestAuthenticator;
import io.granary.common.s3.S3Buckets;
import io.granary.common.s3.PlainReads;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.time.Clock;

/**
 * S3 object reads a client sends straight to a target ({@code GET|HEAD /s3/BUCKET/KEY}, path style), signed with
 * one of the proxy's S3 keys: a client that knows the cluster map skips the proxy's hop, which on shared cores costs
 * more than the target's own work (docs/s3-api.md, "S3 reads straight from targets").
 *
 * <p>Only plain reads ({@link PlainReads}), and only of keys this target serves reads of in its current map: a read
 * of another target's key is answered 307 to that target (clients that re-sign on a redirect follow it; a presigned
 * URL, which signs the host, must be made for the owner). Everything else, writes and listings included, stays with
 * the proxy, which verifies bodies before anything is stored and merges listings. The signature is verified as the proxy does
 * it, with the same errors; unsigned requests are refused (anonymous reads of public-read objects go through the
 * proxy). The cluster's own query parameters ({@code granary-*}) make a read not plain, and its headers are dropped:
 * only a proxy's cluster signature makes a target trust them.
 */
public final class DirectS3Reads {
  private final String self;
  private final ClusterMetadataHolder cluster;
  private final S3TargetRoutes routes;
  private final CredentialStore keys;
  private final RequestAuthenticator auth;

  public DirectS3Reads(String self, ClusterMetadataHolder cluster, S3TargetRoutes routes, CredentialStore keys,
      Clock clock) {
    this.self = self;
    this.cluster = cluster;
    this.routes = routes;
    this.keys = keys;
    this.auth = new RequestAuthenticator(keys, false, clock);
  }

  /** Serves, redirects or refuses a request under {@code /s3/} that carries no cluster signature. */
  public RequestHandler route(HttpExchange ex) {
    if (keys.size() == 0) {
      throw new S3ApiException(HttpResponseStatus.FORBIDDEN, "AccessDenied", "this target takes no S3 requests "
          + "of its own (it runs without --access-key); send them to a proxy");
    }
    // Who asks comes first, as S3 answers: a request nobody signed learns nothing of what it asks
    auth.authenticate(ex); // 403 unsigned, SignatureDoesNotMatch, InvalidAccessKeyId, expired...
    HttpMethod m = ex.method();
    if (!(m.equals(HttpMethod.GET) || m.equals(HttpMethod.HEAD)) || !PlainReads.test(ex.queryParams())) {
      throw new S3ApiException(HttpResponseStatus.METHOD_NOT_ALLOWED, "MethodNotAllowed", "a target serves only "
          + "object GET and HEAD sent to it directly; send " + m + " and sub-resource requests to a proxy");
    }
    String rest = ex.path().raw().substring(S3ObjectApi.PREFIX.length());
    int slash = rest.indexOf('/');
    if (slash <= 0 || slash == rest.length() - 1) {
      throw new S3ApiException(HttpResponseStatus.BAD_REQUEST, "InvalidRequest", "a target serves objects only: "
          + "/s3/BUCKET/KEY");
    }
    BucketProps bucket = S3Buckets.resolve(cluster, RequestPath.decode(rest.substring(0, slash)));
    String key = RequestPath.decode(rest.substring(slash + 1));
    Node reader = ObjectOwner.forRead(cluster.require(), bucket, key);
    if (!reader.id().equals(self)) {
      return AfterBody.of(ex, exchange -> exchange.sendRedirect(reader.url() + exchange.request().uri()));
    }
    HttpHeaders h = ex.request().headers();
    h.names().stream().filter(n -> n.regionMatches(true, 0, "granary-", 0, 8)).toList().forEach(h::remove);
    h.set(S3ObjectApi.PROVIDER_HEADER, bucket.bucket().provider().wireName());
    return routes.route(ex);
  }
}
