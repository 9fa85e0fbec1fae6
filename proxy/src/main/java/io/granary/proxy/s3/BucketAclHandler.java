package io.granary.proxy.s3;

import io.granary.clustermap.acl.CannedAcl;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.common.control.ControlClient;
import io.granary.common.error.MethodNotAllowedException;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.common.s3.AccessControlPolicy;
import io.granary.common.s3.AccessControlPolicyBody;
import io.granary.common.s3.S3Responses;
import io.granary.proxy.ProxyContext;
import io.granary.common.http.relay.RequestBody;
import io.granary.common.s3.S3Buckets;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * GetBucketAcl ({@code GET /BUCKET?acl}): the bucket's canned ACL from bucket metadata, as an AccessControlPolicy.
 * PutBucketAcl ({@code PUT /BUCKET?acl} with {@code x-amz-acl}, or an AccessControlPolicy body whose grants are
 * those of a canned ACL): a bucket property change through the primary, answered once every active node has it.
 * Refusals of the head (grants 501, unknown ACL 400) are decided before the body is read; a body's, once it has
 * arrived whole and verified; either way before anything changes.
 */
final class BucketAclHandler {
  private BucketAclHandler() {}

  static RequestHandler forRequest(HttpExchange ex, ProxyContext ctx, BucketAdmin admin, String name,
      RequestBody body) {
    HttpMethod m = ex.method();
    if (m.equals(HttpMethod.GET)) {
      BucketProps bucket = S3Buckets.resolve(ctx.cluster(), name);
      return exchange -> S3Responses.xml(exchange, HttpResponseStatus.OK,
          new AccessControlPolicy(S3Owner.OWNER, bucket.acl()));
    }
    if (!m.equals(HttpMethod.PUT)) {
      throw new MethodNotAllowedException(m, ex.path().raw());
    }
    CannedAcl header = ObjectAcls.headerAcl(ex);
    BucketProps bucket = S3Buckets.resolve(ctx.cluster(), name);
    if (header != null) {
      ObjectAcls.refusePublicRemote(bucket, header);
      return exchange -> set(exchange, admin, bucket, header);
    }
    return new S3BodyCollector(body, AccessControlPolicyBody.MAX_BYTES) {
      @Override
      protected void handle(HttpExchange exchange, byte[] policy) {
        CannedAcl acl = AccessControlPolicyBody.parse(policy);
        ObjectAcls.refusePublicRemote(bucket, acl);
        set(exchange, admin, bucket, acl);
      }
    };
  }

  private static void set(HttpExchange ex, BucketAdmin admin, BucketProps bucket, CannedAcl acl) {
    admin.setAcl(bucket.bucket(), acl).whenComplete((ok, err) -> {
      if (err != null) {
        ex.sendError(ControlClient.cause(err));
      } else {
        ex.sendHead(HttpResponseStatus.OK, null);
      }
    });
  }
}
