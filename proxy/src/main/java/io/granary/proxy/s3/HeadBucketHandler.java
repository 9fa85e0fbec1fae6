package io.granary.proxy.s3;

import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.s3.S3Buckets;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;

/** {@code HEAD /BUCKET}: 200 when the bucket exists, 404 NoSuchBucket otherwise. */
final class HeadBucketHandler implements RequestHandler {
  private final ClusterMetadataHolder cluster;
  private final String name;

  HeadBucketHandler(ClusterMetadataHolder cluster, String name) {
    this.cluster = cluster;
    this.name = name;
  }

  @Override
  public void onRequest(HttpExchange ex) {
    S3Buckets.resolve(cluster, name);
    HttpHeaders h = new DefaultHttpHeaders();
    h.set("x-amz-bucket-region", S3Router.REGION);
    ex.sendHead(HttpResponseStatus.OK, h);
  }
}
