package io.granary.proxy.s3;

import io.granary.clustermap.acl.CannedAcl;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.common.control.ControlClient;
import io.granary.common.error.MethodNotAllowedException;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.common.s3.AccessControlPolicy;
import io.granary.common.s3.S3Responses;
import io.granary.proxy.ProxyContext;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * GetBucketAcl ({@code GET /BUCKET?acl}): the bucket's canned ACL from bucket metadata, as an AccessControlPolicy.
 * PutBucketAcl ({@code PUT /BUCKET?acl} with {@code x-amz-acl}): a bucket property change through the primary,
 * answered once every active node has it. Refusals (grants or a policy body 501, unknown ACL 400) are decided from
 * the request head, before anything changes.
 */
final class BucketAclHandler {
  private BucketAclHandler() {}

  static RequestHandler forRequest(HttpExchange ex, ProxyContext ctx, BucketAdmin admin, String name) {
    HttpMethod m = ex.method();
    if (m.equals(HttpMethod.GET)) {
      BucketProps bucket = S3Router.resolve(ctx.cluster(), name);
      return exchange -> S3Responses.xml(exchange, HttpResponseStatus.OK,
          new AccessControlPolicy(S3Owner.OWNER, bucket.acl()));
    }
    if (!m.equals(HttpMethod.PUT)) {
      throw new MethodNotAllowedException(m, ex.path().raw());
    }
    CannedAcl acl = ObjectAcls.requiredAcl(ex);
    BucketProps bucket = S3Router.resolve(ctx.cluster(), name);
    ObjectAcls.refusePublicRemote(bucket, acl);
    return exchange -> admin.setAcl(bucket.bucket(), acl).whenComplete((ok, err) -> {
      if (err != null) {
        exchange.sendError(ControlClient.cause(err));
      } else {
        exchange.sendHead(HttpResponseStatus.OK, null);
      }
    });
  }
}
