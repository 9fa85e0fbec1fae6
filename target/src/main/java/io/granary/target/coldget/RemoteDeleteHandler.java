package io.granary.target.coldget;

import io.granary.backend.BackendException;
import io.granary.common.control.ControlClient;
import io.granary.common.error.ObjectNotFoundException;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.target.http.ObjectApi;
import io.granary.target.http.ObjectDeleteHandler;
import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * DELETE of an object: in a remote bucket it is deleted from the remote store first, then from the cache (a
 * failed remote delete leaves both as they were); local buckets as {@link ObjectDeleteHandler}.
 */
final class RemoteDeleteHandler implements RequestHandler {
  private final ObjectApi api;
  private final ColdObjects cold;
  private final BoundedExecutor disk;

  RemoteDeleteHandler(ObjectApi api, ColdObjects cold, BoundedExecutor disk) {
    this.api = api;
    this.cold = cold;
    this.disk = disk;
  }

  @Override
  public void onRequest(HttpExchange ex) throws Exception {
    ex.useErrorRenderer(api.errors());
    ObjectApi.ObjectRequest req = api.read(ex);
    if (!req.bucket().isRemote()) {
      new ObjectDeleteHandler(api, cold.store(), disk).serve(ex, req);
      return;
    }
    cold.pool().submit(() -> {
      boolean existed = true;
      try {
        cold.backend(req.bucket()).head(req.bucket().bucket().name(), req.name());
      } catch (BackendException e) {
        if (e.kind() != BackendException.Kind.NOT_FOUND) {
          throw e;
        }
        existed = false;
      }
      if (existed) {
        cold.backend(req.bucket()).delete(req.bucket().bucket().name(), req.name());
      }
      boolean cached = cold.store().delete(req.bucket(), req.name());
      return existed || cached;
    }).whenComplete((deleted, err) -> {
      if (err != null) {
        ex.sendError(RemoteErrors.toApi(req.bucket(), req.name(), ControlClient.cause(err)));
      } else if (!deleted && api.missingDeleteIsError()) {
        ex.sendError(new ObjectNotFoundException(req.bucket().bucket().toString(), req.name()));
      } else {
        ex.sendHead(HttpResponseStatus.NO_CONTENT, null);
      }
    });
  }
}
