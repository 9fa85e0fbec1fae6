package io.granary.proxy.s3;

import io.granary.common.s3.S3Responses;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.s3.ListAllMyBucketsResult;
import io.granary.common.s3.ListedBucket;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.List;

/** {@code GET /}: ListBuckets, every bucket in the bucket metadata (local and registered remote ones). */
final class ListBucketsHandler implements RequestHandler {
  private final ClusterMetadataHolder cluster;

  ListBucketsHandler(ClusterMetadataHolder cluster) {
    this.cluster = cluster;
  }

  @Override
  public void onRequest(HttpExchange ex) {
    List<ListedBucket> buckets = cluster.require().buckets().buckets().values().stream()
        .map(b -> new ListedBucket(b.bucket().name(), b.created())).toList();
    S3Responses.xml(ex, HttpResponseStatus.OK, new ListAllMyBucketsResult(S3Owner.OWNER, buckets));
  }
}
