package io.granary.proxy.http;

import io.granary.clustermap.Node;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.common.api.ApiPaths;
import io.granary.common.api.ListParams;
import io.granary.common.api.ObjectAddress;
import io.granary.common.control.ControlClient;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.proxy.listing.ListingMerger;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.List;

/**
 * {@code GET /v1/buckets/BUCKET?prefix=&start-after=&limit=&token=[&provider=aws|gcp][&cached=true]}: one page of
 * the bucket's objects across the cluster, {@code {"entries":[{"name","size","checksum"}],"token":"..."}}; no token
 * on the last page. A remote bucket is listed as its remote store has it, each entry with {@code "cached"};
 * {@code cached=true} lists only the cached copies, from the targets alone.
 */
final class ObjectListHandler implements RequestHandler {
  private final ClusterMetadataHolder cluster;
  private final ListingMerger lister;

  ObjectListHandler(ClusterMetadataHolder cluster, ListingMerger lister) {
    this.cluster = cluster;
    this.lister = lister;
  }

  @Override
  public void onRequest(HttpExchange ex) {
    BucketProps bucket = cluster.requireBucket(
        ObjectAddress.bucket(ex.path().decodedAfter(ApiPaths.BUCKETS_SLASH), ex.queryParam("provider")));
    ListParams params = ListParams.parse(ex);
    List<Node> targets = cluster.require().placement().holders();
    lister.listForClient(targets, bucket, params, "true".equalsIgnoreCase(ex.queryParam("cached")))
        .whenComplete((page, err) -> {
      if (err != null) {
        ex.sendError(ControlClient.cause(err));
      } else {
        ex.sendJson(HttpResponseStatus.OK, page);
      }
    });
  }
}
