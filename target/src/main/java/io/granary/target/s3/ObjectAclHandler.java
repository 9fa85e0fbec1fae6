package io.granary.target.s3;

import io.granary.clustermap.acl.CannedAcl;
import io.granary.common.control.ControlClient;
import io.granary.common.error.ObjectNotFoundException;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.common.s3.AccessControlPolicy;
import io.granary.common.s3.CannedAclHeader;
import io.granary.common.s3.Owner;
import io.granary.common.s3.S3ApiException;
import io.granary.common.s3.S3Responses;
import io.granary.target.http.ObjectApi;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.storage.ObjectStore;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.IOException;

/**
 * GetObjectAcl ({@code GET ?acl}): the object's canned ACL as an AccessControlPolicy; PutObjectAcl
 * ({@code PUT ?acl} with {@code x-amz-acl}): replaces it in the object's record, which keeps its content, ETag and
 * mtime. The proxy has refused grants, a policy body and unsupported ACLs before relaying; 404 NoSuchKey for a
 * missing object.
 */
final class ObjectAclHandler implements RequestHandler {
  private final ObjectApi api;
  private final ObjectStore store;
  private final BoundedExecutor disk;

  ObjectAclHandler(ObjectApi api, ObjectStore store, BoundedExecutor disk) {
    this.api = api;
    this.store = store;
    this.disk = disk;
  }

  @Override
  public void onRequest(HttpExchange ex) throws IOException {
    ex.useErrorRenderer(api.errors());
    ObjectApi.ObjectRequest req = api.read(ex);
    if (ex.method().equals(HttpMethod.GET)) {
      ObjectMeta meta = store.stat(req.bucket(), req.name());
      if (meta == null) {
        throw new ObjectNotFoundException(req.bucket().bucket().toString(), req.name());
      }
      S3Responses.xml(ex, HttpResponseStatus.OK, new AccessControlPolicy(Owner.CLUSTER, meta.acl()));
      return;
    }
    CannedAcl acl = CannedAclHeader.parse(ex.request().headers());
    if (acl == null) {
      throw new S3ApiException(HttpResponseStatus.BAD_REQUEST, "InvalidRequest",
          "PutObjectAcl needs a canned ACL in x-amz-acl (private or public-read)");
    }
    disk.submit(() -> store.updateAcl(req.bucket(), req.name(), acl)).whenComplete((meta, err) -> {
      if (err != null) {
        ex.sendError(ControlClient.cause(err));
      } else if (meta == null) {
        ex.sendError(new ObjectNotFoundException(req.bucket().bucket().toString(), req.name()));
      } else {
        ex.sendHead(HttpResponseStatus.OK, null);
      }
    });
  }
}
