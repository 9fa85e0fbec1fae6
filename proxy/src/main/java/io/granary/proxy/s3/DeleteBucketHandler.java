package io.granary.proxy.s3;

import io.granary.clustermap.Node;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.common.api.ListParams;
import io.granary.common.control.ControlClient;
import io.granary.common.error.ConflictException;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.proxy.ProxyContext;
import io.granary.common.s3.S3Buckets;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.List;

/** {@code DELETE /BUCKET}: DeleteBucket; 409 BucketNotEmpty while it holds objects; 204 once deleted everywhere. */
final class DeleteBucketHandler implements RequestHandler {
  private final ProxyContext ctx;
  private final BucketAdmin admin;
  private final String name;

  DeleteBucketHandler(ProxyContext ctx, BucketAdmin admin, String name) {
    this.ctx = ctx;
    this.admin = admin;
    this.name = name;
  }

  @Override
  public void onRequest(HttpExchange ex) {
    BucketProps bucket = S3Buckets.resolve(ctx.cluster(), name);
    List<Node> targets = ctx.cluster().require().placement().holders();
    ctx.lister().list(targets, bucket, new ListParams("", null, 1))
        .thenCompose(page -> {
          if (!page.entries().isEmpty()) {
            throw new ConflictException(ConflictException.BUCKET_NOT_EMPTY,
                "The bucket you tried to delete is not empty");
          }
          return admin.delete(bucket.bucket());
        })
        .whenComplete((ok, err) -> {
          if (err != null) {
            ex.sendError(ControlClient.cause(err));
          } else {
            ex.sendHead(HttpResponseStatus.NO_CONTENT, null);
          }
        });
  }
}
