package io.granary.target.http;

import io.granary.clustermap.bucket.BucketProps;
import io.granary.common.api.ObjectAddress;
import io.granary.common.control.ControlClient;
import io.granary.common.error.ObjectNotFoundException;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.target.storage.ObjectStore;
import io.netty.handler.codec.http.HttpResponseStatus;

/** {@code DELETE /v1/objects/BUCKET/OBJECT}: 204 when deleted, 404 when absent. The synced delete runs on the disk pool. */
final class ObjectDeleteHandler implements RequestHandler {
  private final ClusterMetadataHolder cluster;
  private final ObjectStore store;
  private final BoundedExecutor disk;

  ObjectDeleteHandler(ClusterMetadataHolder cluster, ObjectStore store, BoundedExecutor disk) {
    this.cluster = cluster;
    this.store = store;
    this.disk = disk;
  }

  @Override
  public void onRequest(HttpExchange ex) {
    ObjectAddress addr = ObjectAddress.parse(ex);
    BucketProps bucket = cluster.requireBucket(addr.bucket());
    disk.submit(() -> store.delete(bucket, addr.name())).whenComplete((deleted, err) -> {
      if (err != null) {
        ex.sendError(StorageErrors.of("deleting " + addr.name(), ControlClient.cause(err)));
      } else if (!deleted) {
        ex.sendError(new ObjectNotFoundException(addr.bucket().toString(), addr.name()));
      } else {
        ex.sendHead(HttpResponseStatus.NO_CONTENT, null);
      }
    });
  }
}
