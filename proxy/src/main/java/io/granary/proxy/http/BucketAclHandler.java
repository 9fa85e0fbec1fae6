package io.granary.proxy.http;

import io.granary.clustermap.acl.CannedAcl;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.Provider;
import io.granary.common.api.ApiPaths;
import io.granary.common.api.ObjectAddress;
import io.granary.common.error.BadRequestException;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.proxy.membership.ClusterAuthority;
import io.granary.proxy.membership.MetadataPusher;
import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * {@code PUT /v1/buckets/BUCKET?acl=private|public-read} on the primary: sets the bucket's canned ACL (S3's
 * PutBucketAcl on another proxy arrives here). Answers 200 with the bucket's properties once every active node has
 * the change, so an unsigned listing right after is decided by the new ACL everywhere.
 */
final class BucketAclHandler implements RequestHandler {
  private final ClusterAuthority authority;
  private final MetadataPusher pusher;
  private final BoundedExecutor control;

  BucketAclHandler(ClusterAuthority authority, MetadataPusher pusher, BoundedExecutor control) {
    this.authority = authority;
    this.pusher = pusher;
    this.control = control;
  }

  /** Whether a bucket PUT is this one: it names {@code acl} in its query. */
  static boolean matches(HttpExchange ex) {
    return ex.queryParam("acl") != null;
  }

  @Override
  public void onRequest(HttpExchange ex) {
    Bucket bucket = ObjectAddress.bucket(ex.path().decodedAfter(ApiPaths.BUCKETS_SLASH), ex.queryParam("provider"));
    CannedAcl acl = acl(ex, bucket);
    if (acl == null) {
      throw BadRequestException.invalidArgument("acl must be private or public-read");
    }
    AdminCall.changeBucket(ex, control, HttpResponseStatus.OK, pusher, bucket,
        () -> authority.setBucketAcl(bucket, acl));
  }

  /**
   * The {@code acl} query parameter: null when absent; 400 for a name Granary does not keep, and for public-read on
   * a remote bucket (its objects live in another store, whose access rules Granary cannot widen).
   */
  static CannedAcl acl(HttpExchange ex, Bucket bucket) {
    String name = ex.queryParam("acl");
    if (name == null) {
      return null;
    }
    CannedAcl acl = CannedAcl.find(name).orElseThrow(
        () -> BadRequestException.invalidArgument("acl must be private or public-read, not '" + name + "'"));
    if (acl.publicRead() && bucket.provider() != Provider.AIS) {
      throw BadRequestException.invalidArgument("a remote bucket cannot be public-read");
    }
    return acl;
  }
}
