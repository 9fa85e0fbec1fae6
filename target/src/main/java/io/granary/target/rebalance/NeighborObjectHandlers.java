package io.granary.target.rebalance;

import io.granary.common.control.ControlClient;
import io.granary.common.error.ServiceUnavailableException;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.common.membership.ObjectOwner;
import io.granary.target.http.ObjectApi;
import io.granary.target.http.ObjectHandlers;
import io.granary.target.http.StorageErrors;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.storage.ObjectStore;
import io.granary.target.storage.PutOperation;
import io.granary.target.storage.Relocation;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.IOException;
import java.time.Clock;

/**
 * Object handlers that keep reads and deletes right while objects move between targets; they wrap the handlers
 * that serve what is on this target. Once the cluster's rebalance has settled they only delegate.
 *
 * <ul>
 *   <li>GET and HEAD of an object not here first bring it from the target that still holds it
 *       ({@link NeighborLookup}), then serve it as if it had always been here. When no target has it the request
 *       goes on as usual (404, or a cold GET for a remote bucket); when a target that may hold it cannot answer, a
 *       local bucket's object is 503 with Retry-After rather than a wrong 404.</li>
 *   <li>DELETE first records a tombstone here (so a copy still in flight cannot bring the object back), then removes
 *       the copies other targets hold, then deletes as usual.</li>
 * </ul>
 */
public final class NeighborObjectHandlers implements ObjectHandlers {
  private final ObjectHandlers inner;
  private final ObjectStore store;
  private final NeighborLookup neighbors;
  private final Relocation relocation;
  private final BoundedExecutor disk;
  private final Clock clock;

  public NeighborObjectHandlers(ObjectHandlers inner, ObjectStore store, NeighborLookup neighbors,
      Relocation relocation, BoundedExecutor disk) {
    this.inner = inner;
    this.store = store;
    this.neighbors = neighbors;
    this.relocation = relocation;
    this.disk = disk;
    this.clock = Clock.systemUTC();
  }

  @Override
  public RequestHandler get(ObjectApi api) {
    return new Deferred(api, inner.get(api)) {
      @Override
      void before(HttpExchange ex, ObjectApi.ObjectRequest req) throws IOException {
        if (store.stat(req.bucket(), req.name()) != null) {
          proceed(ex);
          return;
        }
        neighbors.fetch(req.bucket(), req.name()).whenComplete((found, err) -> ex.onLoop(() -> {
          if (err == null && found == NeighborLookup.Found.UNKNOWN && !req.bucket().isRemote()) {
            ex.sendError(new ServiceUnavailableException(ServiceUnavailableException.TARGET_OFFLINE, "object '"
                + req.name() + "' may be on a target that cannot answer now; retry shortly",
                ObjectOwner.RETRY_SECONDS));
            return;
          }
          proceed(ex); // found here, or nowhere: the usual answer (a lookup error falls back to it too)
        }));
      }
    };
  }

  @Override
  public RequestHandler put(ObjectApi api) {
    return inner.put(api);
  }

  @Override
  public RequestHandler delete(ObjectApi api) {
    return new Deferred(api, inner.delete(api)) {
      @Override
      void before(HttpExchange ex, ObjectApi.ObjectRequest req) {
        long now = clock.millis();
        disk.submit(() -> {
          relocation.tombstone(req.bucket(), req.name(), now);
          return null;
        }).thenCompose(v -> neighbors.removeElsewhere(req.bucket(), req.name(), now))
            .whenComplete((removedElsewhere, err) -> ex.onLoop(() -> {
              try {
                if (err != null) {
                  ex.sendError(StorageErrors.of("deleting " + req.name(), ControlClient.cause(err)));
                } else if (removedElsewhere && !req.bucket().isRemote()
                    && store.stat(req.bucket(), req.name()) == null) {
                  ex.sendHead(HttpResponseStatus.NO_CONTENT, null); // it existed, on a previous owner
                } else {
                  proceed(ex);
                }
              } catch (IOException e) {
                ex.sendError(StorageErrors.of("deleting " + req.name(), e));
              }
            }));
      }
    };
  }

  @Override
  public ObjectMeta commit(PutOperation op) throws IOException {
    return inner.commit(op);
  }

  /**
   * A request that may need a step before the wrapped handler takes it: {@link #before} calls {@link #proceed} once
   * ready. Bodyless requests only (GET, HEAD, DELETE); callbacks that arrive before the wrapped handler has started
   * are replayed to it then.
   */
  private abstract class Deferred implements RequestHandler {
    private final ObjectApi api;
    private final RequestHandler delegate;
    private boolean started; // event loop only
    private boolean ended;

    Deferred(ObjectApi api, RequestHandler delegate) {
      this.api = api;
      this.delegate = delegate;
    }

    abstract void before(HttpExchange ex, ObjectApi.ObjectRequest req) throws IOException;

    @Override
    public void onRequest(HttpExchange ex) throws Exception {
      ex.useErrorRenderer(api.errors());
      ObjectApi.ObjectRequest req = api.read(ex);
      if (!neighbors.unsettled()) {
        proceed(ex);
        return;
      }
      before(ex, req);
    }

    /** Hands the request to the wrapped handler. Event loop. */
    void proceed(HttpExchange ex) {
      started = true;
      try {
        delegate.onRequest(ex);
        if (ended) {
          delegate.onEnd(ex);
        }
      } catch (Throwable t) {
        ex.sendError(t);
      }
    }

    @Override
    public void onContent(HttpExchange ex, HttpContent chunk) throws Exception {
      if (started) {
        delegate.onContent(ex, chunk);
      }
    }

    @Override
    public void onEnd(HttpExchange ex) throws Exception {
      ended = true;
      if (started) {
        delegate.onEnd(ex);
      }
    }

    @Override
    public void onAbort(HttpExchange ex, Throwable cause) {
      if (started) {
        delegate.onAbort(ex, cause);
      }
    }

    @Override
    public void onClientWritabilityChanged(HttpExchange ex, boolean writable) {
      if (started) {
        delegate.onClientWritabilityChanged(ex, writable);
      }
    }

    @Override
    public void onClientClosed(HttpExchange ex) {
      if (started) {
        delegate.onClientClosed(ex);
      }
    }
  }
}
