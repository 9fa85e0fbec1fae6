package io.granary.proxy.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.acl.CannedAcl;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.Protection;
import io.granary.clustermap.bucket.Provider;
import io.granary.clustermap.bucket.RemoteBackend;
import io.granary.common.api.ApiPaths;
import io.granary.common.api.ObjectAddress;
import io.granary.common.control.ControlClient;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.JsonRequestHandler;
import io.granary.proxy.membership.ClusterAuthority;
import io.granary.proxy.membership.MetadataPusher;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.time.Duration;

/**
 * {@code POST /v1/buckets/BUCKET[?provider=aws|gcp][&acl=private|public-read]} on the primary, with an optional JSON body ({@link BucketSpec}):
 * creates a local bucket, or registers a remote one after checking its store answers (201 with its properties; 409
 * if the name is taken; 400 for a protection the cluster cannot hold, see {@link ProtectionCheck}). Answers once every active node has the new bucket
 * metadata, so an object PUT right after never meets a target that does not know the bucket.
 */
final class BucketCreateHandler extends JsonRequestHandler {
  static final Duration PUSH_WAIT = Duration.ofSeconds(10);

  private final ClusterAuthority authority;
  private final MetadataPusher pusher;
  private final ProtectionCheck check;
  private final BoundedExecutor control;

  BucketCreateHandler(ClusterAuthority authority, MetadataPusher pusher, ProtectionCheck check,
      BoundedExecutor control) {
    this.authority = authority;
    this.check = check;
    this.pusher = pusher;
    this.control = control;
  }

  @Override
  protected void handle(HttpExchange ex, JsonNode body) {
    Bucket bucket = ObjectAddress.bucket(ex.path().decodedAfter(ApiPaths.BUCKETS_SLASH), ex.queryParam("provider"));
    BucketSpec spec = BucketSpec.parse(body, bucket.provider() != Provider.AIS);
    CannedAcl acl = BucketAclHandler.acl(ex, bucket);
    if (spec.protection().equals(Protection.NONE)) {
      create(ex, bucket, spec, acl);
      return;
    }
    // A new bucket holds nothing: only whether the cluster can hold the protection is asked.
    BucketProps asked = new BucketProps(bucket, "new", null, null, spec.backend(), spec.freshness(), acl,
        spec.protection());
    check.check(asked, spec.protection(), true).whenComplete((v, err) -> {
      if (err != null) {
        ex.sendError(ControlClient.cause(err));
      } else {
        create(ex, bucket, spec, acl);
      }
    });
  }

  private void create(HttpExchange ex, Bucket bucket, BucketSpec spec, CannedAcl acl) {
    AdminCall.changeBucket(ex, control, HttpResponseStatus.CREATED, pusher, bucket, () -> {
      if (bucket.provider() != Provider.AIS) {
        RemoteProbe.check(bucket, spec.backend() == null
            ? new RemoteBackend(null, null, false, null, null, false) : spec.backend());
      }
      return authority.createBucket(bucket, spec.checksumFor(bucket.provider()), spec.backend(), spec.freshness(),
          acl, spec.protection());
    });
  }
}
