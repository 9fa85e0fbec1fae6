package io.granary.target.s3;

import io.granary.clustermap.acl.CannedAcl;
import io.granary.common.control.ControlClient;
import io.granary.common.error.ObjectNotFoundException;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.SmallBodyHandler;
import io.granary.common.error.NotImplementedException;
import io.granary.common.s3.AccessControlPolicy;
import io.granary.common.s3.AccessControlPolicyBody;
import io.granary.common.s3.CannedAclHeader;
import io.granary.common.s3.Owner;
import io.granary.common.s3.S3ApiException;
import io.granary.common.s3.S3Responses;
import io.granary.target.http.ObjectApi;
import io.granary.target.storage.ObjectStore;
import io.granary.target.storage.Relocation;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.IOException;

/**
 * GetObjectAcl ({@code GET ?acl}): the object's canned ACL as an AccessControlPolicy; PutObjectAcl
 * ({@code PUT ?acl} with {@code x-amz-acl}, or an AccessControlPolicy body whose grants are those of a canned ACL,
 * as s3cmd {@code setacl} sends): replaces it in the object's record, which keeps its content, ETag and mtime. The
 * proxy has refused grants in headers and unsupported canned ACLs before relaying; the body is read here, once it
 * has arrived whole. 404 NoSuchKey for a missing object. A target that no longer owns the object under its map
 * refuses the change (503 ObjectMoving, {@link Relocation#changeAcl}): while objects move, an ACL changes on the
 * owner only, after the object was brought there (the handler runs behind {@code ObjectHandlers.record}).
 */
final class ObjectAclHandler extends SmallBodyHandler {
  private final ObjectApi api;
  private final ObjectStore store;
  private final Relocation relocation;
  private final BoundedExecutor disk;
  private ObjectApi.ObjectRequest req;

  ObjectAclHandler(ObjectApi api, ObjectStore store, Relocation relocation, BoundedExecutor disk) {
    super(AccessControlPolicyBody.MAX_BYTES);
    this.api = api;
    this.store = store;
    this.relocation = relocation;
    this.disk = disk;
  }

  @Override
  public void onRequest(HttpExchange ex) throws Exception {
    ex.useErrorRenderer(api.errors());
    super.onRequest(ex);
    req = api.read(ex);
  }

  @Override
  protected void handle(HttpExchange ex, byte[] body) throws IOException {
    if (ex.method().equals(HttpMethod.GET)) {
      disk.submit(() -> store.stat(req.bucket(), req.name())).whenComplete((meta, err) -> {
        if (err != null) {
          ex.sendError(ControlClient.cause(err));
        } else if (meta == null) {
          ex.sendError(new ObjectNotFoundException(req.bucket().bucket().toString(), req.name()));
        } else {
          S3Responses.xml(ex, HttpResponseStatus.OK, new AccessControlPolicy(Owner.CLUSTER, meta.acl()));
        }
      });
      return;
    }
    CannedAcl acl = CannedAclHeader.parse(ex.request().headers());
    if (acl == null && body.length > 0) {
      acl = AccessControlPolicyBody.parse(body);
      if (acl.publicRead() && req.bucket().isRemote()) {
        throw new NotImplementedException("public-read is not implemented for remote bucket "
            + req.bucket().bucket() + ": unsigned clients never read through to another store");
      }
    }
    if (acl == null) {
      throw new S3ApiException(HttpResponseStatus.BAD_REQUEST, "InvalidRequest",
          "PutObjectAcl needs a canned ACL in x-amz-acl (private or public-read) or an AccessControlPolicy body");
    }
    CannedAcl chosen = acl;
    disk.submit(() -> relocation.changeAcl(req.bucket(), req.name(), chosen)).whenComplete((meta, err) -> {
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
