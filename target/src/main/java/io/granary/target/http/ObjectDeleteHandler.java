package io.granary.target.http;

import io.granary.common.control.ControlClient;
import io.granary.common.error.ObjectNotFoundException;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.target.storage.ObjectStore;
import io.netty.handler.codec.http.HttpResponseStatus;

/** DELETE of an object: 204 when deleted; for a missing object 404 or 204 as the API says. Runs on the disk pool. */
public final class ObjectDeleteHandler implements RequestHandler {
  private final ObjectApi api;
  private final ObjectStore store;
  private final BoundedExecutor disk;

  public ObjectDeleteHandler(ObjectApi api, ObjectStore store, BoundedExecutor disk) {
    this.api = api;
    this.store = store;
    this.disk = disk;
  }

  @Override
  public void onRequest(HttpExchange ex) {
    ex.useErrorRenderer(api.errors());
    serve(ex, api.read(ex));
  }

  /** Deletes the object already named by {@code req}. */
  public void serve(HttpExchange ex, ObjectApi.ObjectRequest req) {
    disk.submit(() -> store.delete(req.bucket(), req.name())).whenComplete((deleted, err) -> {
      if (err != null) {
        ex.sendError(StorageErrors.of("deleting " + req.name(), ControlClient.cause(err)));
      } else if (!deleted && api.missingDeleteIsError()) {
        ex.sendError(new ObjectNotFoundException(req.bucket().bucket().toString(), req.name()));
      } else {
        ex.sendHead(HttpResponseStatus.NO_CONTENT, null);
      }
    });
  }
}
