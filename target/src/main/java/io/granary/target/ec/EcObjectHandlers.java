package io.granary.target.ec;

import io.granary.clustermap.Node;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.hrw.PlacementKey;
import io.granary.common.control.ControlClient;
import io.granary.common.error.ApiException;
import io.granary.common.error.ServiceUnavailableException;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.membership.ObjectOwner;
import io.granary.target.http.GrowingFileResponse;
import io.granary.target.http.ObjectApi;
import io.granary.target.http.ObjectGetHandler;
import io.granary.target.http.ObjectHandlers;
import io.granary.target.http.StorageErrors;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.storage.ObjectStore;
import io.granary.target.storage.PutOperation;
import io.granary.target.storage.StoredObject;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * The read path's erasure-coding hook, outermost around the object handlers. Objects of buckets without EC go
 * straight through. For an erasure-coded bucket:
 *
 * <ul>
 *   <li>On the owner, a GET or HEAD whose main copy is not usable (no record while the map is settled, or a file
 *       missing or of the wrong size: one open and one fstat, as a mirrored read does) rebuilds it from its slices
 *       and commits it ({@link Rebuilder#restore}). A GET streams the object from the rebuild's work file as it is
 *       decoded (its last byte once every checksum matched; a failed rebuild cuts the client off); a HEAD, a range
 *       GET, and a GET that arrives when the rebuild cannot stream, wait for it and are served by the usual
 *       handlers.</li>
 *   <li>Elsewhere, when the owner is offline (the proxies send such reads here, to the first slice holder): the
 *       object is rebuilt and never kept. A whole-object GET streams it as it is decoded, from one rebuild that
 *       every GET of the object joins while it runs; a HEAD, a range, and a GET that comes when that rebuild cannot
 *       stream get a rebuild of their own, served from an unlinked work file ({@link Rebuilder#degraded}).</li>
 *   <li>Fewer than D slices (and no replica) reachable: 503 {@value #NOT_ENOUGH}, never a wrong or short body.</li>
 *   <li>DELETE removes the slices on their holders as it goes through (best effort).</li>
 * </ul>
 */
public final class EcObjectHandlers implements ObjectHandlers {
  /** The 503's code when an object's main copy is lost and it cannot be rebuilt now. */
  public static final String NOT_ENOUGH = "NotEnoughSlices";
  /** The 503's code when a rebuild had its slices but failed (a slice or the object failed its checksum, I/O). */
  public static final String REBUILD_FAILED = "RebuildFailed";

  private final ObjectHandlers inner;
  private final ObjectStore store;
  private final ClusterMetadataHolder cluster;
  private final ErasureCoding ec;
  private final Function<HttpExchange, CompletableFuture<Void>> mapOf;
  private final BooleanSupplier unsettled;

  /**
   * @param mapOf completes once this target holds the map a request was routed by
   * @param unsettled whether objects may still be on previous owners (a missing record is then theirs to find)
   */
  public EcObjectHandlers(ObjectHandlers inner, ObjectStore store, ClusterMetadataHolder cluster, ErasureCoding ec,
      Function<HttpExchange, CompletableFuture<Void>> mapOf, BooleanSupplier unsettled) {
    this.inner = inner;
    this.store = store;
    this.cluster = cluster;
    this.ec = ec;
    this.mapOf = mapOf;
    this.unsettled = unsettled;
  }

  @Override
  public RequestHandler get(ObjectApi api) {
    RequestHandler next = inner.get(api);
    return new Hook(next) {
      @Override
      void decide(HttpExchange ex) throws Exception {
        ObjectApi.ObjectRequest req = api.read(ex);
        BucketProps b = req.bucket();
        if (b.protection().ecData() == 0) {
          proceed(ex);
          return;
        }
        ClusterMetadataHolder.Snapshot s = cluster.require();
        Node owner = s.placement().owner(PlacementKey.digest(b.bucket(), req.name())).orElse(null);
        if (owner == null) {
          proceed(ex);
        } else if (owner.id().equals(ex.nodeId())) {
          if (usable(b, req.name())) {
            proceed(ex);
            return;
          }
          if (ex.method().equals(HttpMethod.GET)) {
            streamRestore(ex, req, ec.restoring(b, req.name()));
          } else {
            afterRebuild(ex, ec.restore(b, req.name()), r -> proceed(ex));
          }
        } else if ((owner.state() == NodeState.OFFLINE || owner.state() == NodeState.SUSPENDED)
            && store.stat(b, req.name()) == null) {
          if (ex.method().equals(HttpMethod.GET) && ex.header(HttpHeaderNames.RANGE.toString()) == null) {
            streamDegraded(ex, req, owner, ec.degrading(b, req.name()));
          } else {
            serveDegraded(ex, req, owner);
          }
        } else {
          proceed(ex);
        }
      }

      /** Rebuilt for this one read, then served from the unlinked work file: HEAD, ranges, and late GETs. */
      private void serveDegraded(HttpExchange ex, ObjectApi.ObjectRequest req, Node owner) {
        afterRebuild(ex, ec.degraded(req.bucket(), req.name()), r -> {
          if (r.object() == null) {
            offline(ex, req, owner);
          } else {
            ex.useErrorRenderer(api.errors());
            new ObjectGetHandler(api, store).serve(ex, r.object());
          }
        });
      }

      /** No slice anywhere, every holder answering: not encoded yet, or never written; only the owner knows. */
      private void offline(HttpExchange ex, ObjectApi.ObjectRequest req, Node owner) {
        ex.useErrorRenderer(api.errors());
        ex.sendError(new ServiceUnavailableException(ServiceUnavailableException.TARGET_OFFLINE, "target "
            + owner.id() + " that owns '" + req.name() + "' is offline and no slice of it is held elsewhere; "
            + "retry when it is back", ObjectOwner.RETRY_SECONDS));
      }

      /**
       * A whole-object GET while the owner is offline: streamed from the shared rebuild's work file as it is decoded,
       * as a restoring owner streams; a GET that comes when that rebuild cannot stream, or asks for what a streamed
       * answer cannot give, is served by a rebuild of its own.
       */
      private void streamDegraded(HttpExchange ex, ObjectApi.ObjectRequest req, Node owner,
          ErasureCoding.Restore rebuild) {
        streamRebuild(ex, rebuild, () -> afterRebuild(ex, rebuild.result(), r -> {
          if (r.kind() == Rebuilder.Kind.REBUILT) {
            serveDegraded(ex, req, owner); // it ended before this GET could join it
          } else {
            offline(ex, req, owner);
          }
        }), () -> serveDegraded(ex, req, owner)); // a part, or another answer than the whole object
      }

      /** Whether the main copy can be served, or (record absent) is for a cold GET or a neighbor to bring. */
      private boolean usable(BucketProps b, String name) {
        StoredObject obj;
        try {
          obj = store.open(b, name);
        } catch (IOException | RuntimeException e) {
          return false; // record present, file missing or unreadable
        }
        if (obj == null) {
          // A remote bucket's object not cached here is the cold GET's to fetch; while objects move, the
          // neighbors' lookup finds it on a previous owner.
          return b.isRemote() || unsettled.getAsBoolean();
        }
        try (var ch = obj.channel()) {
          return ch.size() == obj.meta().size();
        } catch (IOException e) {
          return false;
        }
      }

      /**
       * Streams the object from the rebuild's work file as it is written, once the rebuild has chosen its version;
       * when it will not stream (nothing to rebuild, too few slices, the rebuild failed or ended already), waits
       * for its result as a HEAD does. A range is sent once the rebuild is verified: cutting a whole-object answer
       * short before its last byte is what keeps wrong bytes from a client, and a range may end before that byte.
       */
      private void streamRestore(HttpExchange ex, ObjectApi.ObjectRequest req, ErasureCoding.Restore restore) {
        Runnable afterIt = () -> afterRebuild(ex, restore.result(), r -> proceed(ex));
        streamRebuild(ex, restore, afterIt, afterIt);
      }

      /**
       * Streams a whole object from {@code rebuild}'s work file as it is decoded (its last byte once every checksum
       * matched; a failed rebuild cuts the client off), once the rebuild has chosen its version.
       *
       * @param notJoined what answers when the rebuild will not stream or can no longer be joined
       * @param notWhole what answers a request whose answer is not the whole object (a range, a part)
       */
      private void streamRebuild(HttpExchange ex, ErasureCoding.Restore rebuild, Runnable notJoined,
          Runnable notWhole) {
        rebuild.copy().started().whenComplete((meta, err) -> ex.onLoop(() -> {
          if (aborted()) {
            return;
          }
          if (meta == null || !rebuild.copy().acquire()) {
            notJoined.run();
            return;
          }
          boolean handedOver = false;
          try {
            ex.useErrorRenderer(api.errors());
            api.authorizeRead(ex, meta);
            HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
            api.describe(head.headers(), meta);
            if (ObjectGetHandler.notModified(ex, meta, head.headers())) {
              return;
            }
            if (ObjectGetHandler.prepareRead(api, ex, meta, head) != null) {
              notWhole.run();
              return;
            }
            GrowingFileResponse response = new GrowingFileResponse(ex, rebuild.copy(), head, 0, meta.size());
            handedOver = true;
            streaming(response);
            ec.rebuildStreamed();
            response.start();
          } catch (Throwable t) {
            ex.sendError(t);
          } finally {
            if (!handedOver) {
              rebuild.copy().release();
            }
          }
        }));
      }

      private void afterRebuild(HttpExchange ex, CompletableFuture<Rebuilder.Result> rebuild, Then then) {
        rebuild.whenComplete((r, err) -> ex.onLoop(() -> {
          try {
            if (err != null) {
              Throwable cause = ControlClient.cause(err);
              ex.useErrorRenderer(api.errors());
              if (cause instanceof ApiException a) {
                ex.sendError(a); // 503 Busy: too many rebuilds waiting
                return;
              }
              ec.rebuildFailed();
              ex.sendError(new ServiceUnavailableException(REBUILD_FAILED, "the object's main copy is lost and "
                  + "rebuilding it failed: " + cause.getMessage(), ObjectOwner.RETRY_SECONDS));
            } else if (r.kind() == Rebuilder.Kind.NOT_ENOUGH) {
              ec.rebuildFailed();
              ex.useErrorRenderer(api.errors());
              ex.sendError(new ServiceUnavailableException(NOT_ENOUGH, r.message(), ObjectOwner.RETRY_SECONDS));
            } else {
              then.accept(r);
            }
          } catch (Throwable t) {
            ex.sendError(t);
          }
        }));
      }
    };
  }

  @FunctionalInterface
  private interface Then {
    void accept(Rebuilder.Result r) throws Exception;
  }

  @Override
  public RequestHandler put(ObjectApi api) {
    return inner.put(api);
  }

  @Override
  public RequestHandler delete(ObjectApi api) {
    RequestHandler next = inner.delete(api);
    return new Hook(next) {
      @Override
      void decide(HttpExchange ex) throws Exception {
        ObjectApi.ObjectRequest req = api.read(ex);
        if (req.bucket().protection().ecData() > 0) {
          ec.deleting(req.bucket(), req.name());
        }
        proceed(ex);
      }
    };
  }

  @Override
  public RequestHandler record(ObjectApi api, RequestHandler handler) {
    return inner.record(api, handler);
  }

  @Override
  public ObjectMeta commit(PutOperation op) throws IOException {
    return inner.commit(op);
  }

  /**
   * Decides on the request's head (once this target holds the map it was routed by), then hands the request, with
   * what it missed, to the wrapped handler, or answers it itself. Event loop.
   */
  private abstract class Hook implements RequestHandler {
    private final RequestHandler next;
    private RequestHandler current;
    private boolean ended;
    private boolean aborted;

    Hook(RequestHandler next) {
      this.next = next;
    }

    abstract void decide(HttpExchange ex) throws Exception;

    @Override
    public void onRequest(HttpExchange ex) throws Exception {
      CompletableFuture<Void> map = mapOf.apply(ex);
      if (map.isDone()) {
        decide(ex);
        return;
      }
      map.whenComplete((v, err) -> ex.onLoop(() -> {
        try {
          if (!aborted) {
            decide(ex);
          }
        } catch (Throwable t) {
          ex.sendError(t);
        }
      }));
    }

    boolean aborted() {
      return aborted;
    }

    /** The answer streams from {@code response}: client events go to it. */
    void streaming(GrowingFileResponse response) {
      current = new RequestHandler() {
        @Override
        public void onRequest(HttpExchange ex) {
          // the request was answered by the hook
        }

        @Override
        public void onClientWritabilityChanged(HttpExchange ex, boolean writable) {
          if (writable) {
            response.clientWritable();
          }
        }

        @Override
        public void onClientClosed(HttpExchange ex) {
          response.clientClosed();
        }
      };
    }

    void proceed(HttpExchange ex) throws Exception {
      if (aborted) {
        return;
      }
      current = next;
      next.onRequest(ex);
      if (ended && !ex.answered()) {
        next.onEnd(ex);
      }
    }

    @Override
    public void onContent(HttpExchange ex, HttpContent chunk) throws Exception {
      if (current != null) {
        current.onContent(ex, chunk);
      }
    }

    @Override
    public void onEnd(HttpExchange ex) throws Exception {
      ended = true;
      if (current != null) {
        current.onEnd(ex);
      }
    }

    @Override
    public void onAbort(HttpExchange ex, Throwable cause) {
      aborted = true;
      if (current != null) {
        current.onAbort(ex, cause);
      }
    }

    @Override
    public void onClientWritabilityChanged(HttpExchange ex, boolean writable) {
      if (current != null) {
        current.onClientWritabilityChanged(ex, writable);
      }
    }

    @Override
    public void onClientClosed(HttpExchange ex) {
      if (current != null) {
        current.onClientClosed(ex);
      }
    }
  }
}
