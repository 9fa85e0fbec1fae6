package io.granary.target.http;

import io.granary.clustermap.bucket.BucketProps;
import io.granary.common.api.ApiPaths;
import io.granary.common.api.ObjectAddress;
import io.granary.common.control.ControlClient;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.target.multipart.MultipartStore;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.Map;

/**
 * {@code GET /v1/buckets/BUCKET?uploads&prefix=&key-marker=&upload-id-marker=&max-uploads=} on a target: this
 * target's multipart uploads in progress, as JSON {@code [{"uploadId","name","initiated"}]}, for a proxy to merge.
 */
final class LocalUploadsHandler implements RequestHandler {
  private final ClusterMetadataHolder cluster;
  private final MultipartStore multipart;
  private final BoundedExecutor disk;

  LocalUploadsHandler(ClusterMetadataHolder cluster, MultipartStore multipart, BoundedExecutor disk) {
    this.cluster = cluster;
    this.multipart = multipart;
    this.disk = disk;
  }

  @Override
  public void onRequest(HttpExchange ex) {
    BucketProps bucket = cluster.requireBucket(ObjectAddress.bucket(
        ex.path().decodedAfter(ApiPaths.BUCKETS_SLASH), ex.queryParam("provider")));
    String prefix = orEmpty(ex.queryParam("prefix"));
    int max;
    try {
      max = Math.max(1, Math.min(Integer.parseInt(orEmpty(ex.queryParam("max-uploads"))), 10_001));
    } catch (NumberFormatException e) {
      max = 1001;
    }
    int limit = max;
    disk.submit(() -> multipart.list(bucket, prefix, ex.queryParam("key-marker"), ex.queryParam("upload-id-marker"),
        limit)).whenComplete((uploads, err) -> {
          if (err != null) {
            ex.sendError(ControlClient.cause(err));
          } else {
            ex.sendJson(HttpResponseStatus.OK, uploads.stream()
                .map(u -> Map.of("uploadId", u.uploadId(), "name", u.name(), "initiated", u.initiated())).toList());
          }
        });
  }

  private static String orEmpty(String s) {
    return s == null ? "" : s;
  }
}
