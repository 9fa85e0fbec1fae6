package io.granary.target.rebalance;

import io.granary.clustermap.Node;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.hrw.PlacementKey;
import io.granary.common.api.ObjectAddress;
import io.granary.common.control.ControlClient;
import io.granary.common.error.ApiException;
import io.granary.common.error.BadRequestException;
import io.granary.common.error.ConflictException;
import io.granary.common.error.MethodNotAllowedException;
import io.granary.common.error.ObjectNotFoundException;
import io.granary.common.error.RouteNotFoundException;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.target.http.StorageErrors;
import io.granary.target.http.WritePreconditions;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.storage.OffLoopWrites;
import io.granary.target.storage.PutOperation;
import io.granary.target.storage.Relocation;
import io.granary.target.storage.WriteCondition;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The target's endpoints for objects moving between targets ({@link ObjectTransport}) and its rebalance progress.
 * Only peers call them: like every target endpoint they take only cluster-signed requests.
 */
public final class TransportRoutes {
  private static final Logger log = LoggerFactory.getLogger(TransportRoutes.class);

  private final ClusterMetadataHolder cluster;
  private final Rebalancer rebalancer;
  private final BoundedExecutor disk;
  private final BoundedExecutor urgent;
  private final MapCatchUp catchUp;

  /**
   * @param disk where a copy's state is looked up for its sender
   * @param urgent where copies a client waits for are committed (get-from-neighbor), ahead of the rebalance's own
   */
  public TransportRoutes(ClusterMetadataHolder cluster, Rebalancer rebalancer, BoundedExecutor disk,
      BoundedExecutor urgent) {
    this.cluster = cluster;
    this.rebalancer = rebalancer;
    this.disk = disk;
    this.urgent = urgent;
    this.catchUp = new MapCatchUp(cluster.nodeId(), cluster);
  }

  /** Where a copy is written and committed: ahead of everything when a client waits for it, in the background else. */
  private BoundedExecutor poolFor(HttpExchange ex) {
    return ObjectTransport.FOREGROUND.equals(ex.header(ObjectTransport.PRIORITY_HEADER)) ? urgent
        : rebalancer.receiving();
  }

  /** Whether {@code rawPath} is one of these endpoints. */
  public static boolean handles(String rawPath) {
    return rawPath.startsWith(ObjectTransport.PREFIX) || rawPath.equals(ObjectTransport.PROGRESS);
  }

  public RequestHandler route(HttpExchange ex) {
    String path = ex.path().raw();
    HttpMethod m = ex.method();
    if (path.equals(ObjectTransport.PROGRESS)) {
      if (m.equals(HttpMethod.GET)) {
        return e -> e.sendJson(HttpResponseStatus.OK, rebalancer.progress());
      }
    } else if (path.startsWith(ObjectTransport.OBJECTS)) {
      if (m.equals(HttpMethod.PUT)) {
        return new Receive();
      } else if (m.equals(HttpMethod.GET)) {
        return this::describe;
      } else if (m.equals(HttpMethod.DELETE)) {
        return this::removeOlder;
      }
    } else if (path.startsWith(ObjectTransport.PUSH)) {
      if (m.equals(HttpMethod.POST)) {
        return this::push;
      }
    } else {
      throw new RouteNotFoundException(path);
    }
    throw new MethodNotAllowedException(m, path);
  }

  private record Target(BucketProps bucket, String name) {
  }

  private Target target(HttpExchange ex, String prefix) {
    ObjectAddress addr = ObjectAddress.parse(ex, prefix);
    return new Target(cluster.requireBucket(addr.bucket()), addr.name());
  }

  /**
   * {@code POST /v1/transport/push/...?to=NODE}: send the copy held here to NODE now, once this target holds the map
   * the asking owner named ({@code granary-map}). Why wait: under an older map this target may still own the object,
   * keep its copy after the push and accept a change of its record (an ACL) that the owner's copy then never gets.
   */
  private void push(HttpExchange ex) {
    java.util.concurrent.CompletableFuture<Void> map = catchUp.mapOf(ex);
    if (map.isDone()) {
      pushNow(ex);
      return;
    }
    map.whenComplete((v, err) -> ex.onLoop(() -> {
      try {
        pushNow(ex);
      } catch (Throwable t) {
        ex.sendError(t);
      }
    }));
  }

  private void pushNow(HttpExchange ex) {
    Target t = target(ex, ObjectTransport.PUSH);
    String to = ex.queryParam(ObjectTransport.TO);
    Node node = to == null ? null : cluster.require().map().targets().get(to);
    if (node == null) {
      throw BadRequestException.invalidArgument("push needs ?to= a target of the cluster map, got " + to);
    }
    long relayAbove = relayAbove(ex);
    if (relayAbove >= 0) {
      long size;
      try {
        size = rebalancer.relocation().size(t.bucket(), t.name());
      } catch (java.io.IOException e) {
        throw StorageErrors.of("pushing " + t.name(), e);
      }
      if (size >= relayAbove) {
        // Large: the asking owner relays its reader from here while the object moves, instead of waiting for it.
        rebalancer.push(t.bucket(), t.name(), node).whenComplete((outcome, err) -> {
          if (err != null) {
            log.warn("node={} bucket={} object={} push to {} failed: {}", ex.nodeId(), t.bucket().bucket(), t.name(),
                to, ControlClient.cause(err).toString());
          }
        });
        ex.sendJson(HttpResponseStatus.OK, new ObjectTransport.Answer(ObjectTransport.RELAY, false));
        return;
      }
    }
    rebalancer.push(t.bucket(), t.name(), node).whenComplete((outcome, err) -> {
      if (err != null) {
        Throwable cause = ControlClient.cause(err);
        log.warn("node={} bucket={} object={} push to {} failed: {}", ex.nodeId(), t.bucket().bucket(), t.name(),
            to, cause.toString());
        ex.sendError(StorageErrors.of("pushing " + t.name() + " to " + to, cause));
      } else if (outcome == null) {
        ex.sendError(new ObjectNotFoundException(t.bucket().bucket().toString(), t.name()));
      } else {
        ex.sendJson(HttpResponseStatus.OK, new ObjectTransport.Answer(outcome.name().toLowerCase(Locale.ROOT),
            true));
      }
    });
  }

  /** The push's {@code relay} threshold in bytes, or -1 without one; 400 when malformed. */
  private static long relayAbove(HttpExchange ex) {
    String v = ex.queryParam(ObjectTransport.RELAY_ABOVE);
    if (v == null) {
      return -1;
    }
    try {
      long n = Long.parseLong(v);
      if (n < 0) {
        throw new NumberFormatException();
      }
      return n;
    } catch (NumberFormatException e) {
      throw BadRequestException.invalidArgument("?" + ObjectTransport.RELAY_ABOVE + "= must be a byte count, got " + v);
    }
  }

  /** Whether this target owns the object under the map it holds now. */
  private boolean owns(Target t) {
    return cluster.require().placement().owner(PlacementKey.digest(t.bucket().bucket(), t.name()))
        .map(n -> n.id().equals(cluster.nodeId())).orElse(false);
  }

  /**
   * {@code GET /v1/transport/objects/...}: the ETag of the copy here ({@code {"etag":...}}), or 404; a target
   * completing an upload of a key this target owns checks the completion's condition with it.
   */
  private void describe(HttpExchange ex) {
    Target t = target(ex, ObjectTransport.OBJECTS);
    disk.submit(() -> rebalancer.relocation().current(t.bucket(), t.name())).whenComplete((meta, err) -> {
      if (err != null) {
        ex.sendError(StorageErrors.of("reading " + t.name(), ControlClient.cause(err)));
      } else if (meta == null) {
        ex.sendError(new ObjectNotFoundException(t.bucket().bucket().toString(), t.name()));
      } else {
        ex.sendJson(HttpResponseStatus.OK, new ObjectTransport.Current(meta.effectiveEtag()));
      }
    });
  }

  /** {@code DELETE /v1/transport/objects/...?before=MS}: remove the copy here if it is not newer than MS. */
  private void removeOlder(HttpExchange ex) {
    Target t = target(ex, ObjectTransport.OBJECTS);
    long before;
    try {
      before = Long.parseLong(String.valueOf(ex.queryParam(ObjectTransport.BEFORE)));
    } catch (NumberFormatException e) {
      throw BadRequestException.invalidArgument("removal needs ?before= epoch milliseconds");
    }
    Relocation relocation = rebalancer.relocation();
    disk.submit(() -> relocation.removeOlderThan(t.bucket(), t.name(), before)).whenComplete((removed, err) -> {
      if (err != null) {
        ex.sendError(StorageErrors.of("removing " + t.name(), ControlClient.cause(err)));
      } else {
        ex.sendJson(HttpResponseStatus.OK, Map.of("removed", removed));
      }
    });
  }

  /**
   * {@code PUT /v1/transport/objects/...}: a copy sent by another target; committed only over an older one. A sender
   * with a newer map than this target's (this target may have just joined) is held back until the map is here.
   */
  private final class Receive implements RequestHandler {
    private OffLoopWrites<PutOperation> op; // the copy's work file, written on the disk pool
    private byte[] record;   // the record leading the body, while it arrives
    private int recordRead;
    private boolean refused; // answered with an error before the body ended
    private ObjectMeta meta;
    private long atime;
    private WriteCondition condition; // a completed upload sent by its holder: decided at the commit
    private Target target;
    private final java.util.ArrayDeque<HttpContent> early = new java.util.ArrayDeque<>(); // read before started
    private boolean started;
    private boolean ended;
    private boolean aborted;

    @Override
    public void onRequest(HttpExchange ex) {
      java.util.concurrent.CompletableFuture<Void> map = catchUp.mapOf(ex);
      if (map.isDone()) {
        begin(ex);
        return;
      }
      ex.readRequestBody(false);
      map.whenComplete((v, err) -> ex.onLoop(() -> {
        ex.readRequestBody(true);
        try {
          begin(ex);
          while (!early.isEmpty() && !aborted) {
            HttpContent c = early.poll();
            try {
              onContent(ex, c);
            } finally {
              c.release();
            }
          }
          if (ended) {
            onEnd(ex);
          }
        } catch (Throwable t) {
          early.forEach(HttpContent::release);
          early.clear();
          ex.sendError(t);
        }
      }));
    }

    private void begin(HttpExchange ex) {
      if (aborted) {
        return;
      }
      started = true;
      target = target(ex, ObjectTransport.OBJECTS);
      String bid = ex.queryParam(ObjectTransport.BUCKET_ID);
      if (!target.bucket().id().equals(bid)) {
        throw new ConflictException("BucketIdMismatch", "bucket " + target.bucket().bucket() + " is incarnation "
            + target.bucket().id() + " here, not " + bid);
      }
      record = new byte[ObjectTransport.recordLength(ex.header(ObjectTransport.META_LENGTH_HEADER),
          ex.declaredLength())];
      condition = WritePreconditions.parse(ex.request().headers());
      try {
        String a = ex.header(ObjectTransport.ATIME_HEADER);
        atime = a == null ? 0 : Long.parseLong(a);
      } catch (NumberFormatException e) {
        throw BadRequestException.invalidArgument("bad " + ObjectTransport.ATIME_HEADER);
      }
    }

    /** The record has arrived: decoded, checked against the body's length, and the copy's work file opened. */
    private void receiveContent(HttpExchange ex) {
      meta = ObjectTransport.decodeMeta(record);
      long content = ex.declaredLength() - record.length;
      record = null;
      if (content != meta.size()) {
        throw BadRequestException.invalidArgument("the body carries " + content + " bytes after the record, not the "
            + "object's size " + meta.size());
      }
      try {
        BoundedExecutor pool = poolFor(ex);
        op = new OffLoopWrites<>(rebalancer.relocation().beginReceive(target.bucket(), target.name(), meta),
            pool::execute, ex);
      } catch (Exception e) {
        throw StorageErrors.of("receiving " + target.name(), e);
      }
    }

    @Override
    public void onContent(HttpExchange ex, HttpContent chunk) throws Exception {
      if (!started) {
        early.add(chunk.retain()); // the dispatcher releases its own reference when this returns
        return;
      }
      if (refused) {
        return;
      }
      ByteBuf bytes = chunk.content();
      if (record != null) {
        int n = Math.min(bytes.readableBytes(), record.length - recordRead);
        bytes.getBytes(bytes.readerIndex(), record, recordRead, n);
        recordRead += n;
        if (recordRead < record.length) {
          return;
        }
        try {
          receiveContent(ex);
        } catch (ApiException e) {
          refused = true;
          ex.sendError(e);
          return;
        }
        bytes = bytes.slice(bytes.readerIndex() + n, bytes.readableBytes() - n);
      }
      if (op != null && bytes.isReadable()) {
        op.write(bytes);
      }
    }

    @Override
    public void onEnd(HttpExchange ex) {
      ended = true;
      if (!started || refused) {
        return;
      }
      if (op == null) {
        refused = true;
        ex.sendError(BadRequestException.invalidArgument("the body ended inside the object's record"));
        return;
      }
      OffLoopWrites<PutOperation> writes = op;
      op = null;
      Relocation relocation = rebalancer.relocation();
      BoundedExecutor pool = poolFor(ex);
      AtomicReference<PutOperation> put = new AtomicReference<>();
      writes.end().thenCompose(p -> {
        put.set(p);
        return pool.submit(() -> relocation.commitReceived(p, meta, atime, condition));
      }).whenComplete((outcome, err) -> {
        if (err != null) {
          PutOperation p = put.get();
          if (p != null) {
            p.discard();
          } else {
            writes.abort(); // a write failed: the work file goes
          }
          ex.sendError(StorageErrors.of("committing received " + target.name(), ControlClient.cause(err)));
          return;
        }
        if (outcome == Relocation.Outcome.STORED) {
          rebalancer.received(meta.size());
        }
        ex.sendJson(HttpResponseStatus.OK, new ObjectTransport.Answer(outcome.name().toLowerCase(Locale.ROOT),
            owns(target)));
      });
    }

    @Override
    public void onAbort(HttpExchange ex, Throwable cause) {
      aborted = true;
      early.forEach(HttpContent::release);
      early.clear();
      OffLoopWrites<PutOperation> writes = op;
      op = null;
      if (writes != null) {
        writes.abort();
      }
    }
  }
}
