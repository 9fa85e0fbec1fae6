package io.granary.target.http;

import io.granary.clustermap.bucket.BucketProps;
import io.granary.common.api.ApiPaths;
import io.granary.common.api.ListParams;
import io.granary.common.api.ObjectAddress;
import io.granary.common.control.ControlClient;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.common.listing.ListPage;
import io.granary.common.listing.Pages;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.target.storage.ObjectStore;
import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * {@code GET /v1/buckets/BUCKET?prefix=&start-after=&limit=&token=} on a target: this target's objects only, as a
 * sorted page. Proxies merge these pages across targets. The RocksDB scan runs on the disk pool.
 */
final class LocalListHandler implements RequestHandler {
  private final ClusterMetadataHolder cluster;
  private final ObjectStore store;
  private final BoundedExecutor disk;

  LocalListHandler(ClusterMetadataHolder cluster, ObjectStore store, BoundedExecutor disk) {
    this.cluster = cluster;
    this.store = store;
    this.disk = disk;
  }

  @Override
  public void onRequest(HttpExchange ex) {
    String name = ex.path().decodedAfter(ApiPaths.BUCKETS_SLASH);
    BucketProps bucket = cluster.requireBucket(ObjectAddress.bucket(name, ex.queryParam("provider")));
    ListParams p = ListParams.parse(ex);
    disk.submit(() -> store.list(bucket, p.prefix(), p.startAfter(), p.delimiter(), p.limit() + 1))
        .whenComplete((page, err) -> {
          if (err != null) {
            ex.sendError(StorageErrors.of("listing " + bucket.bucket(), ControlClient.cause(err)));
            return;
          }
          ex.sendJson(HttpResponseStatus.OK, Pages.cut(page, p.limit()));
        });
  }
}
