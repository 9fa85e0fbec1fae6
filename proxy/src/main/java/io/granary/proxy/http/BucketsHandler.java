package io.granary.proxy.http;

import io.granary.clustermap.bucket.BucketProps;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.common.membership.ClusterMetadataHolder;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.List;
import java.util.Map;

/** {@code GET /v1/buckets}: every bucket with its properties, {@code {"buckets":[...]}}. */
final class BucketsHandler implements RequestHandler {
  private final ClusterMetadataHolder cluster;

  BucketsHandler(ClusterMetadataHolder cluster) {
    this.cluster = cluster;
  }

  @Override
  public void onRequest(HttpExchange ex) {
    List<BucketProps> buckets = List.copyOf(cluster.require().buckets().buckets().values());
    ex.sendJson(HttpResponseStatus.OK, Map.of("buckets", buckets));
  }
}
