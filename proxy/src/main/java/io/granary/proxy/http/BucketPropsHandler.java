package io.granary.proxy.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.Protection;
import io.granary.common.api.ApiPaths;
import io.granary.common.api.ObjectAddress;
import io.granary.common.control.ControlClient;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.JsonRequestHandler;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.proxy.membership.ClusterAuthority;
import io.granary.proxy.membership.MetadataPusher;
import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * {@code PATCH /v1/buckets/BUCKET[?provider=aws|gcp]} on the primary, body {@code {"mirror.copies":2,...}} with
 * keys of {@link Protection#KEYS}: changes a bucket's protection (docs/protection.md). Answers 200 with the
 * bucket's properties once every active node has them; 400 for an unknown key, a bad value or a setting the
 * cluster cannot hold; 409 for erasure coding D or P on a bucket that holds objects. A refused change changes
 * nothing.
 */
final class BucketPropsHandler extends JsonRequestHandler {
  private final ClusterMetadataHolder cluster;
  private final ClusterAuthority authority;
  private final MetadataPusher pusher;
  private final ProtectionCheck check;
  private final BoundedExecutor control;

  BucketPropsHandler(ClusterMetadataHolder cluster, ClusterAuthority authority, MetadataPusher pusher,
      ProtectionCheck check, BoundedExecutor control) {
    this.cluster = cluster;
    this.authority = authority;
    this.pusher = pusher;
    this.check = check;
    this.control = control;
  }

  @Override
  protected void handle(HttpExchange ex, JsonNode body) {
    Bucket bucket = ObjectAddress.bucket(ex.path().decodedAfter(ApiPaths.BUCKETS_SLASH), ex.queryParam("provider"));
    BucketProps props = cluster.requireBucket(bucket);
    Protection next = BucketSpec.protection(body, props.protection());
    check.check(props, next, false).whenComplete((v, err) -> {
      if (err != null) {
        ex.sendError(ControlClient.cause(err));
        return;
      }
      AdminCall.changeBucket(ex, control, HttpResponseStatus.OK, pusher, bucket,
          () -> authority.setBucketProtection(bucket, props.protection(), next));
    });
  }
}
