package io.granary.target.http;

import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.RequestHandler;
import io.granary.target.storage.ObjectStore;

/**
 * Makes the handlers of plain object operations (GET/HEAD, PUT, DELETE) for an API. The local-only set serves
 * what is on disk; the caching set ({@code io.granary.target.coldget.CachingObjectHandlers}) adds cold GETs,
 * revalidation and write-through for remote buckets.
 */
public interface ObjectHandlers {
  RequestHandler get(ObjectApi api);

  RequestHandler put(ObjectApi api);

  RequestHandler delete(ObjectApi api);

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
    };
  }
}
