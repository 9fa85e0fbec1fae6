package io.granary.target.rebalance;

import io.granary.clustermap.Node;
import io.granary.common.auth.ClusterSigner;
import io.granary.common.control.ControlClient;
import io.granary.common.error.ServiceUnavailableException;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.common.http.client.UpstreamPool;
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
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Object handlers that keep reads and deletes right while objects move between targets; they wrap the handlers
 * that serve what is on this target. Once the cluster's rebalance has settled they only delegate. A request routed
 * by a newer cluster map than this target holds waits (briefly) for that map first.
 *
 * <ul>
 *   <li>Every request first waits (briefly, reading no body meanwhile) until this target holds the map the request
 *       was routed by, so a target that just joined or has not yet received a change answers by the same
 *       placement as the node that sent the request.</li>
 *   <li>GET and HEAD of an object not here are relayed from the target that still holds it ({@link NeighborRelay}),
 *       which has it pushed here meanwhile ({@link NeighborLookup}). When no target has it the request goes on as
 *       usual (404, or a cold GET for a remote bucket); when a target that may hold it cannot answer, the push is
 *       awaited, and a local bucket's object is 503 with Retry-After rather than a wrong 404. An object deleted
 *       here while objects move is never relayed.</li>
 *   <li>A native client that followed a proxy's redirect is instead redirected at once, whatever the object's
 *       size, to the first serving target after this one in HRW order, its likely holder ({@link NeighborRedirect}),
 *       while the object is pulled here in the background: nothing passes through this target while it moves.</li>
 *   <li>A read relayed by another target ({@link NeighborRelay#isNeighborRead}) is answered from what is here or
 *       404, whether or not the map is settled; a redirected client whose object has left goes back to its owner.</li>
 *   <li>A request that reads or changes only an object's record (Get/PutObjectAcl, GetObjectAttributes) of an
 *       object not here first brings it here from the target that still holds it, then is served as if it had
 *       always been here: an ACL changes on the owner's copy only, never on a copy about to be removed (and a 404
 *       answers only what no target has).</li>
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
  private final NeighborRelay.Via relays;
  private final NeighborRedirect redirects;
  private final long relaySize;

  /**
   * @param self this target's id
   * @param pool connections to the other targets, for reads relayed from them
   * @param signer signs relayed reads (null without a cluster secret)
   * @param stats counts relayed reads
   * @param relaySize objects at least this large are relayed while they move here; smaller ones are brought first
   */
  public NeighborObjectHandlers(ObjectHandlers inner, ObjectStore store, NeighborLookup neighbors,
      Relocation relocation, BoundedExecutor disk, String self, UpstreamPool pool, ClusterSigner signer,
      RebalanceStats stats, long relaySize) {
    this.inner = inner;
    this.store = store;
    this.neighbors = neighbors;
    this.relocation = relocation;
    this.disk = disk;
    this.clock = Clock.systemUTC();
    this.relays = new NeighborRelay.Via(self, pool, signer, stats);
    this.redirects = new NeighborRedirect(self, signer);
    this.relaySize = relaySize;
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
        if (relocation.deletedWhileMoving(req.bucket(), req.name())) {
          fetchFirst(ex, req); // the copies a delete could not reach are refused when they arrive, never served
          return;
        }
        boolean redirect = NeighborRedirect.applies(ex);
        if (redirect) {
          // A client that follows redirects is sent at once to where the object most likely is, the first target
          // after this one in HRW order (the previous owner), while that target is asked to push it here: neither
          // the ask nor the push is waited for. Should the guess be wrong, that target sends the client back here
          // marked, and the read then waits for the lookup (below).
          Optional<Node> likely = neighbors.others(req.bucket(), req.name()).stream()
              .filter(n -> n.state().serving()).findFirst();
          if (likely.isPresent()) {
            neighbors.fetch(req.bucket(), req.name(), 0);
            relays.stats().neighborRead();
            redirects.toHolder(ex, likely.get());
            return;
          }
        }
        // Others (and a redirected client when no other target serves) wait for a small object, and have a large
        // one relayed from its holder.
        neighbors.fetch(req.bucket(), req.name(), relaySize).whenComplete((found, err) -> ex.onLoop(() -> {
          if (err == null && found.found() == NeighborLookup.Found.RELAY) {
            relay(ex, req, found.holder());
          } else {
            answer(ex, req, err == null ? found.found() : null);
          }
        }));
      }

      /**
       * A large object that is on its way here: the reader is answered by the holder, streamed through, rather
       * than made to wait for the whole object to arrive.
       */
      private void relay(HttpExchange ex, ObjectApi.ObjectRequest req, Node holder) {
        List<Node> holders = new ArrayList<>();
        holders.add(holder);
        neighbors.others(req.bucket(), req.name()).stream().filter(n -> !n.id().equals(holder.id()))
            .forEach(holders::add);
        hand(ex, new NeighborRelay(relays, holders, neighbors.mapVersion(), absent -> {
          if (absent) {
            proceed(ex); // it has arrived meanwhile, or no target has it: the usual answer
          } else {
            fetchFirst(ex, req);
          }
        }));
      }

      /** After a lookup: serve what is here now, or 503 when a target that may hold the object cannot answer. */
      private void answer(HttpExchange ex, ObjectApi.ObjectRequest req, NeighborLookup.Found found) {
        if (found == NeighborLookup.Found.UNKNOWN && !req.bucket().isRemote()) {
          ex.sendError(new ServiceUnavailableException(ServiceUnavailableException.TARGET_OFFLINE, "object '"
              + req.name() + "' may be on a target that cannot answer now; retry shortly",
              ObjectOwner.RETRY_SECONDS));
          return;
        }
        proceed(ex); // found here, or nowhere: the usual answer (a lookup error falls back to it too)
      }

      /** Brings the object here, then serves it as if it had always been here. */
      private void fetchFirst(HttpExchange ex, ObjectApi.ObjectRequest req) {
        neighbors.fetch(req.bucket(), req.name()).whenComplete((found, err) -> ex.onLoop(() ->
            answer(ex, req, err == null ? found.found() : null)));
      }
    };
  }

  @Override
  public RequestHandler put(ObjectApi api) {
    return new Deferred(api, inner.put(api)) {
      @Override
      void before(HttpExchange ex, ObjectApi.ObjectRequest req) {
        proceed(ex); // a write this target does not own is handed on after its commit (Handoffs)
      }

      @Override
      boolean readsObject() {
        return false; // the map only: the bucket must be known, the object need not be
      }
    };
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
  public RequestHandler record(ObjectApi api, RequestHandler handler) {
    return new Deferred(api, inner.record(api, handler)) {
      @Override
      void before(HttpExchange ex, ObjectApi.ObjectRequest req) throws IOException {
        if (store.stat(req.bucket(), req.name()) != null) {
          proceed(ex);
          return;
        }
        // Small records are never relayed: the object comes here first, whatever its size, and is then read or
        // changed here (a copy deleted here while moving is refused when it arrives, as for a GET).
        neighbors.fetch(req.bucket(), req.name()).whenComplete((found, err) -> ex.onLoop(() -> {
          if (err == null && found.found() == NeighborLookup.Found.UNKNOWN && !req.bucket().isRemote()) {
            ex.sendError(new ServiceUnavailableException(ServiceUnavailableException.TARGET_OFFLINE, "object '"
                + req.name() + "' may be on a target that cannot answer now; retry shortly",
                ObjectOwner.RETRY_SECONDS));
          } else {
            proceed(ex); // here now, or nowhere: the usual answer (a lookup error falls back to it too)
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
   * ready. While it waits, reading the body stops (back-pressure); the few chunks already read are kept (retained,
   * never copied) and replayed to the wrapped handler with the end, if it came.
   */
  private abstract class Deferred implements RequestHandler {
    private final ObjectApi api;
    private final RequestHandler delegate;
    private RequestHandler current; // who takes the request once started: a relay, then maybe the delegate
    private final ArrayDeque<HttpContent> early = new ArrayDeque<>(); // event loop only
    private boolean started; // event loop only
    private boolean ended;
    private boolean aborted;

    Deferred(ObjectApi api, RequestHandler delegate) {
      this.api = api;
      this.delegate = delegate;
    }

    abstract void before(HttpExchange ex, ObjectApi.ObjectRequest req) throws IOException;

    /** Whether the step before needs the object looked up while objects move (reads and deletes do). */
    boolean readsObject() {
      return true;
    }

    @Override
    public void onRequest(HttpExchange ex) throws Exception {
      ex.useErrorRenderer(api.errors());
      // First the map the request was routed by: a target that just joined may not hold any map (nor buckets) yet.
      CompletableFuture<Void> map = neighbors.mapOf(ex);
      if (map.isDone()) {
        decide(ex);
      } else {
        ex.readRequestBody(false);
        map.whenComplete((v, err) -> ex.onLoop(() -> {
          try {
            ex.readRequestBody(true);
            decide(ex);
          } catch (Throwable t) {
            ex.sendError(t);
          }
        }));
      }
    }

    /** With a map at least as new as the request's: straight on when every object is on its owner. */
    private void decide(HttpExchange ex) throws IOException {
      if (aborted) {
        return;
      }
      if (readsObject() && NeighborRelay.isNeighborRead(ex)) {
        // Another target relays this read: answer from what is here, never from a remote or a neighbor.
        ObjectApi.ObjectRequest req = api.read(ex);
        Optional<Node> owner = NeighborRedirect.isRedirectedRead(ex)
            ? neighbors.node(NeighborRedirect.owner(ex)) : Optional.empty();
        if (store.stat(req.bucket(), req.name()) == null) {
          if (owner.isPresent()) {
            redirects.backToOwner(ex, owner.get()); // it has arrived there meanwhile: the client reads it there
            return;
          }
          throw api.notFound(ex, req);
        }
        if (owner.isPresent()) {
          Node to = owner.get();
          ex.overrideErrors(inner -> redirects.backToOwnerOnMiss(ex, to, inner)); // it may leave meanwhile
        }
        proceed(ex);
        return;
      }
      if (!neighbors.unsettled() || !readsObject()) {
        proceed(ex);
        return;
      }
      before(ex, api.read(ex));
    }

    /** Hands the request to the wrapped handler, with what it missed. Event loop. */
    void proceed(HttpExchange ex) {
      hand(ex, delegate);
    }

    /**
     * Hands the request to {@code handler}, with what it missed. A handler that gives the request back (a relay
     * that found nothing) may hand it on once more: body chunks go to the first only, so only bodiless requests
     * may change hands. Event loop.
     */
    void hand(HttpExchange ex, RequestHandler handler) {
      if (aborted) {
        return;
      }
      started = true;
      current = handler;
      try {
        handler.onRequest(ex);
        while (!early.isEmpty()) {
          HttpContent c = early.poll();
          try {
            if (!ex.answered()) {
              handler.onContent(ex, c);
            }
          } finally {
            c.release();
          }
        }
        if (ended) {
          handler.onEnd(ex);
        }
      } catch (Throwable t) {
        early.forEach(HttpContent::release);
        early.clear();
        ex.sendError(t);
      }
    }

    @Override
    public void onContent(HttpExchange ex, HttpContent chunk) throws Exception {
      if (started) {
        current.onContent(ex, chunk);
      } else {
        early.add(chunk.retain()); // the dispatcher releases its reference when this returns
      }
    }

    @Override
    public void onEnd(HttpExchange ex) throws Exception {
      ended = true;
      if (started) {
        current.onEnd(ex);
      }
    }

    @Override
    public void onAbort(HttpExchange ex, Throwable cause) {
      aborted = true;
      early.forEach(HttpContent::release);
      early.clear();
      if (started) {
        current.onAbort(ex, cause);
      }
    }

    @Override
    public void onClientWritabilityChanged(HttpExchange ex, boolean writable) {
      if (started) {
        current.onClientWritabilityChanged(ex, writable);
      }
    }

    @Override
    public void onClientClosed(HttpExchange ex) {
      if (started) {
        current.onClientClosed(ex);
      }
    }
  }
}
