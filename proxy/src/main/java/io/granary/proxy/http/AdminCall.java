package io.granary.proxy.http;

import io.granary.clustermap.bucket.Bucket;
import io.granary.common.control.ControlClient;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.HttpExchange;
import io.granary.common.membership.ClusterMetadata;
import io.granary.proxy.membership.MetadataPusher;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.concurrent.Callable;

/** Runs a blocking admin action (it persists and pushes metadata) on the control pool and answers with its result. */
final class AdminCall {
  private AdminCall() {}

  /**
   * Runs {@code change} (it records a new version of bucket metadata), waits until every active node has that
   * version, and answers with {@code bucket}'s properties in it: a request right after, on any node, sees the change.
   */
  static void changeBucket(HttpExchange ex, BoundedExecutor pool, HttpResponseStatus status, MetadataPusher pusher,
      Bucket bucket, Callable<ClusterMetadata> change) {
    run(ex, pool, status, () -> {
      ClusterMetadata md = change.call();
      pusher.awaitAcked(md, BucketCreateHandler.PUSH_WAIT);
      return md.buckets().get(bucket).orElseThrow();
    });
  }

  static void run(HttpExchange ex, BoundedExecutor pool, HttpResponseStatus status, Callable<Object> action) {
    pool.submit(action).whenComplete((result, err) -> {
      if (err != null) {
        ex.sendError(ControlClient.cause(err));
      } else if (result == null) {
        ex.sendHead(status, null);
      } else {
        ex.sendJson(status, result);
      }
    });
  }
}
