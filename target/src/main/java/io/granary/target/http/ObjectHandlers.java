package io.granary.target.http;

import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.RequestHandler;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.storage.ObjectStore;
import io.granary.target.storage.PutOperation;
import java.io.IOException;

/**
 * Makes the handlers of plain object operations (GET/HEAD, PUT, DELETE) for an API. The local-only set serves
 * what is on disk; the caching set ({@code io.granary.target.coldget.CachingObjectHandlers}) adds cold GETs,
 * revalidation and write-through for remote buckets.
 */
public interface ObjectHandlers {
  RequestHandler get(ObjectApi api);

  RequestHandler put(ObjectApi api);

  RequestHandler delete(ObjectApi api);

  /**
   * Wraps a handler that reads or changes only an object's record (its ACL, its attributes), so that it finds the
   * object where a GET would: while objects move, the rebalancing set first brings the object here from a previous
   * owner. The local set returns {@code handler} itself.
   */
  default RequestHandler record(ObjectApi api, RequestHandler handler) {
    return handler;
  }

  /**
   * Commits a completely written body as its object's new version (disk pool). Operations that build an object
   * on the target rather than from a PUT body (CopyObject) commit through here, so a remote bucket's copy is
   * written through like a PUT.
   */
  ObjectMeta commit(PutOperation op) throws IOException;

  /** Handlers that know only this target's disks. */
  static ObjectHandlers local(ObjectStore store, BoundedExecutor disk) {
    return new ObjectHandlers() {
      @Override
      public RequestHandler get(ObjectApi api) {
        return new ObjectGetHandler(api, store);
      }

      @Override
      public RequestHandler put(ObjectApi api) {
        return new ObjectPutHandler(api, store, disk, PutCompletion.object(api));
      }

      @Override
      public RequestHandler delete(ObjectApi api) {
        return new ObjectDeleteHandler(api, store, disk);
      }

      @Override
      public ObjectMeta commit(PutOperation op) throws IOException {
        return op.finish();
      }
    };
  }
}
