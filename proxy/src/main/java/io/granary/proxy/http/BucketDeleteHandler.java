package io.granary.proxy.http;

import io.granary.clustermap.Node;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.common.api.ApiPaths;
import io.granary.common.api.ListParams;
import io.granary.common.api.ObjectAddress;
import io.granary.common.control.ControlClient;
import io.granary.common.error.BadRequestException;
import io.granary.common.error.ConflictException;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.common.membership.ClusterMetadata;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.proxy.listing.ListingMerger;
import io.granary.proxy.membership.ClusterAuthority;
import io.granary.proxy.membership.MetadataPusher;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.List;

/**
 * {@code DELETE /v1/buckets/BUCKET[?force=true]} on the primary: 204 once deleted; 409 {@code BucketNotEmpty}
 * when it still holds objects and force is not set; 503 when a target cannot be asked. A remote bucket is
 * unregistered whatever it holds: its cached copies are dropped, its remote store is not touched.
 */
final class BucketDeleteHandler implements RequestHandler {
  private final ClusterMetadataHolder cluster;
  private final ClusterAuthority authority;
  private final MetadataPusher pusher;
  private final ListingMerger lister;
  private final BoundedExecutor control;

  BucketDeleteHandler(ClusterMetadataHolder cluster, ClusterAuthority authority, MetadataPusher pusher,
      ListingMerger lister, BoundedExecutor control) {
    this.cluster = cluster;
    this.authority = authority;
    this.pusher = pusher;
    this.lister = lister;
    this.control = control;
  }

  @Override
  public void onRequest(HttpExchange ex) {
    Bucket bucket = ObjectAddress.bucket(ex.path().decodedAfter(ApiPaths.BUCKETS_SLASH), ex.queryParam("provider"));
    String forceParam = ex.queryParam("force");
    if (forceParam != null && !forceParam.equals("true") && !forceParam.equals("false")) {
      throw BadRequestException.invalidArgument("force must be true or false, got '" + forceParam + "'");
    }
    boolean force = "true".equals(forceParam);
    BucketProps props = cluster.requireBucket(bucket);
    ClusterMetadataHolder.Snapshot s = cluster.require();
    List<Node> targets = s.placement().holders();
    if (force || props.isRemote()) { // a remote bucket is only unregistered: its copies go, its store stays
      delete(ex, bucket);
      return;
    }
    lister.list(targets, props, new ListParams("", null, 1)).whenComplete((page, err) -> {
      if (err != null) {
        ex.sendError(ControlClient.cause(err));
      } else if (!page.entries().isEmpty()) {
        ex.sendError(new ConflictException(ConflictException.BUCKET_NOT_EMPTY,
            "bucket '" + bucket + "' is not empty; delete its objects first or use ?force=true"));
      } else {
        delete(ex, bucket);
      }
    });
  }

  private void delete(HttpExchange ex, Bucket bucket) {
    AdminCall.run(ex, control, HttpResponseStatus.NO_CONTENT, () -> {
      ClusterMetadata md = authority.deleteBucket(bucket);
      pusher.awaitAcked(md, BucketCreateHandler.PUSH_WAIT);
      return null;
    });
  }
}
