package io.granary.target.ec;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.Provider;
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
import io.granary.common.http.JsonRequestHandler;
import io.granary.common.http.RequestHandler;
import io.granary.common.http.Router;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.target.http.StorageErrors;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.storage.ObjectStore;
import io.granary.target.storage.OffLoopWrites;
import io.granary.target.storage.StoredName;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The target's erasure-coding endpoints. Only peers call them: like every target endpoint they take only
 * cluster-signed requests.
 *
 * <pre>
 * PUT    /v1/ec/slices/BUCKET/OBJECT?provider=P     a slice or replica: granary-ec-slice = its record (JSON,
 *        base64), body = its bytes; verified, then committed; 200 {"stored":true}, 400 on a mismatch, 409 when a
 *        newer version is held here
 * GET    /v1/ec/slices/BUCKET/OBJECT?provider=P&amp;version=V&amp;index=I   its bytes (index -1: the replica), or 404
 * GET    /v1/ec/records/BUCKET/OBJECT?provider=P    {"records":[...]}: every slice record of the object held here
 * GET    /v1/ec/current/BUCKET/OBJECT?provider=P    {"version":V,"deletedAt":MS}: the object's version here (its
 *        owner), or null and when it was deleted; 404 when neither is known
 * DELETE /v1/ec/slices/BUCKET/OBJECT?provider=P[&amp;keep=V[&amp;keepIndex=K]][&amp;before=MS]   removes the
 *        object's slices here (but version V's, or only its slice K, and versions newer than MS: a delete never
 *        takes a version written after it)
 * POST   /v1/ec/held                                {"provider","bucket","bid","slices":[{"name","version","index"}]}
 *        (at most {@value #MAX_HELD_QUERY}): {"missing":[i...]}, the positions of those not held here whole (an
 *        owner's audit, {@link SliceAudit})
 * POST   /v1/ec/audit[?holder=ID]                   202: this target audits the slices of the objects it owns
 *        on holder ID (it lost a mountpath, and the slices on it), or on every holder
 * GET    /v1/ec                                     this target's counters and queue
 * </pre>
 */
public final class SliceRoutes implements Router {
  public static final String PATH = "/v1/ec";
  public static final String SLICES = "/v1/ec/slices/";
  public static final String RECORDS = "/v1/ec/records/";
  public static final String CURRENT = "/v1/ec/current/";
  public static final String HELD = "/v1/ec/held";
  public static final String AUDIT = "/v1/ec/audit";
  /** The most slices one held query may name: a few hundred KB of JSON, a few directory reads each. */
  public static final int MAX_HELD_QUERY = 1000;
  public static final String RECORD_HEADER = "granary-ec-slice";
  /** The most record bytes taken in a header (the owner's record of a multipart object can be large). */
  private static final int MAX_RECORD = 48 << 10;

  private final ClusterMetadataHolder cluster;
  private final SliceStore slices;
  private final BoundedExecutor disk;
  private final Supplier<?> report;
  private final java.util.function.Consumer<String> auditAsked;
  private final ObjectStore store;

  /**
   * @param disk where slices are written, committed, listed and opened
   * @param report what {@code GET /v1/ec} answers ({@link ErasureCoding#report})
   * @param auditAsked what {@code POST /v1/ec/audit} starts, given its holder or null ({@link
   *     ErasureCoding#auditAsked}); never blocks
   */
  public SliceRoutes(ClusterMetadataHolder cluster, SliceStore slices, ObjectStore store, BoundedExecutor disk,
      Supplier<?> report, java.util.function.Consumer<String> auditAsked) {
    this.cluster = cluster;
    this.auditAsked = auditAsked;
    this.store = store;
    this.slices = slices;
    this.disk = disk;
    this.report = report;
  }

  /**
   * What an owner says of an object: the version it holds, or (version null) when it deleted it last.
   *
   * @param deletedAt epoch ms of the object's last delete recorded here; -1 for none
   */
  public record Current(String version, long deletedAt) {
  }

  /** Every slice record of one object held by a target. */
  public record Records(List<SliceRecord> records) {
  }

  /** What an owner asks a holder: are these slices of objects of one bucket incarnation held here whole? */
  public record HeldQuery(String provider, String bucket, String bid, List<HeldSlice> slices) {
  }

  /** One slice asked about: {@code index} {@link SliceRecord#REPLICA} for a full replica. */
  public record HeldSlice(String name, String version, int index) {
  }

  /** The positions in the query's {@code slices} of those not held here whole. */
  public record HeldAnswer(List<Integer> missing) {
  }

  @Override
  public RequestHandler route(HttpExchange ex) {
    String path = ex.path().raw();
    HttpMethod m = ex.method();
    if (path.equals(PATH) || path.equals(PATH + "/")) {
      if (m.equals(HttpMethod.GET)) {
        return e -> e.sendJson(HttpResponseStatus.OK, report.get());
      }
    } else if (path.startsWith(SLICES)) {
      if (m.equals(HttpMethod.PUT)) {
        return new Receive();
      } else if (m.equals(HttpMethod.GET)) {
        return this::serve;
      } else if (m.equals(HttpMethod.DELETE)) {
        return this::remove;
      }
    } else if (path.startsWith(RECORDS)) {
      if (m.equals(HttpMethod.GET)) {
        return this::records;
      }
    } else if (path.startsWith(CURRENT)) {
      if (m.equals(HttpMethod.GET)) {
        return this::current;
      }
    } else if (path.equals(HELD)) {
      if (m.equals(HttpMethod.POST)) {
        return new HeldCheck();
      }
    } else if (path.equals(AUDIT)) {
      if (m.equals(HttpMethod.POST)) {
        return e -> {
          auditAsked.accept(e.queryParam("holder"));
          e.sendJson(HttpResponseStatus.ACCEPTED, Map.of("audit", "queued"));
        };
      }
    } else {
      throw new RouteNotFoundException(path);
    }
    throw new MethodNotAllowedException(m, path);
  }

  /** The object a request names, in the bucket incarnation it names ({@code bid}, when given; 409 if another). */
  private StoredName target(HttpExchange ex, String prefix) {
    ObjectAddress addr = ObjectAddress.parse(ex, prefix);
    BucketProps b = cluster.requireBucket(addr.bucket());
    String bid = ex.queryParam("bid");
    if (bid != null && !bid.equals(b.id())) {
      throw new ConflictException("BucketIdMismatch", "bucket " + b.bucket() + " is incarnation " + b.id()
          + " here, not " + bid);
    }
    return new StoredName(b, addr.name());
  }

  private void records(HttpExchange ex) {
    StoredName t = target(ex, RECORDS);
    disk.submit(() -> slices.held(t.bucket(), t.name())).whenComplete((held, err) -> {
      if (err != null) {
        ex.sendError(StorageErrors.of("listing slices of " + t.name(), ControlClient.cause(err)));
      } else {
        ex.sendJson(HttpResponseStatus.OK, new Records(held.stream().map(SliceStore.Held::record).toList()));
      }
    });
  }

  /**
   * The version of the object held here, or when it was deleted; 404 when neither is known (a lost record is not a
   * delete: its slices are what rebuilds it).
   */
  private void current(HttpExchange ex) {
    StoredName t = target(ex, CURRENT);
    disk.submit(() -> {
      ObjectMeta meta = store.stat(t.bucket(), t.name());
      return meta != null ? new Current(SliceRecord.versionOf(meta), -1)
          : new Current(null, slices.deletedAt(t.bucket(), t.name()));
    }).whenComplete((c, err) -> {
      if (err != null) {
        ex.sendError(StorageErrors.of("reading " + t.name(), ControlClient.cause(err)));
      } else if (c.version() == null && c.deletedAt() < 0) {
        ex.sendError(new ObjectNotFoundException(t.bucket().bucket().toString(), t.name()));
      } else {
        ex.sendJson(HttpResponseStatus.OK, c);
      }
    });
  }

  private void remove(HttpExchange ex) {
    StoredName t = target(ex, SLICES);
    String keep = ex.queryParam("keep");
    long before;
    try {
      before = ex.queryParam("before") == null ? Long.MAX_VALUE : Long.parseLong(ex.queryParam("before"));
    } catch (NumberFormatException e) {
      throw BadRequestException.invalidArgument("?before= must be epoch milliseconds");
    }
    Integer keepIndex;
    try {
      keepIndex = ex.queryParam("keepIndex") == null ? null : Integer.valueOf(ex.queryParam("keepIndex"));
    } catch (NumberFormatException e) {
      throw BadRequestException.invalidArgument("?keepIndex= must be a slice index");
    }
    if (keepIndex != null && keep == null) {
      throw BadRequestException.invalidArgument("?keepIndex= needs ?keep=");
    }
    disk.submit(() -> slices.remove(t.bucket(), t.name(), r -> !(r.version().equals(keep)
        && (keepIndex == null || r.index() == keepIndex)) && r.mtime() <= before))
        .whenComplete((n, err) -> {
          if (err != null) {
            ex.sendError(StorageErrors.of("removing slices of " + t.name(), ControlClient.cause(err)));
          } else {
            ex.sendJson(HttpResponseStatus.OK, Map.of("removed", n));
          }
        });
  }

  /** Sends a slice's file zero-copy; opened on the disk pool (a directory scan and an open). */
  private void serve(HttpExchange ex) {
    StoredName t = target(ex, SLICES);
    String version = ex.queryParam("version");
    int index;
    try {
      index = Integer.parseInt(String.valueOf(ex.queryParam("index")));
    } catch (NumberFormatException e) {
      throw BadRequestException.invalidArgument("a slice read needs ?version= and ?index=");
    }
    if (version == null) {
      throw BadRequestException.invalidArgument("a slice read needs ?version= and ?index=");
    }
    disk.submit(() -> {
      SliceStore.Held h = slices.find(t.bucket(), t.name(), version, index);
      if (h == null) {
        return null;
      }
      FileChannel ch = FileChannel.open(h.file(), StandardOpenOption.READ);
      if (ch.size() != h.record().sliceSize()) {
        long size = ch.size();
        ch.close();
        throw new IOException("slice file " + h.file() + " is " + size + " bytes, its record says "
            + h.record().sliceSize());
      }
      return Map.entry(h, ch);
    }).whenComplete((found, err) -> {
      if (err != null) {
        ex.sendError(StorageErrors.of("reading slice of " + t.name(), ControlClient.cause(err)));
      } else if (found == null) {
        ex.sendError(new ObjectNotFoundException(t.bucket().bucket().toString(), t.name() + " (slice " + index
            + " of " + version + ")"));
      } else {
        HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        head.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/octet-stream");
        HttpUtil.setContentLength(head, found.getKey().record().sliceSize());
        ex.sendFile(head, found.getValue(), 0, found.getKey().record().sliceSize());
      }
    });
  }

  /** The record a sender put in {@link #RECORD_HEADER}; 400 when missing or undecodable. */
  static SliceRecord parseRecord(String header) {
    if (header == null || header.isEmpty() || header.length() > MAX_RECORD) {
      throw BadRequestException.invalidArgument("a slice needs its record (at most " + MAX_RECORD + " bytes) in "
          + RECORD_HEADER);
    }
    try {
      return SliceRecord.decode(Base64.getDecoder().decode(header));
    } catch (IOException | IllegalArgumentException e) {
      throw BadRequestException.invalidArgument("undecodable slice record: " + e.getMessage());
    }
  }

  /** {@code POST /v1/ec/held}: each slice looked up on the disk pool; 400 for a malformed or oversized query. */
  private final class HeldCheck extends JsonRequestHandler {
    @Override
    protected void handle(HttpExchange ex, JsonNode body) {
      if (body == null) {
        throw BadRequestException.invalidArgument("a held query needs a JSON body");
      }
      HeldQuery q = convert(body, HeldQuery.class);
      if (q.slices() == null || q.slices().size() > MAX_HELD_QUERY) {
        throw BadRequestException.invalidArgument("a held query names 0 to " + MAX_HELD_QUERY + " slices");
      }
      for (HeldSlice h : q.slices()) {
        if (h == null || h.name() == null || h.name().isEmpty() || h.version() == null
            || h.index() < SliceRecord.REPLICA) {
          throw BadRequestException.invalidArgument("each slice asked about needs a name, a version and an index");
        }
      }
      Bucket bucket;
      try {
        bucket = new Bucket(Provider.parse(q.provider()), q.bucket());
      } catch (IllegalArgumentException e) {
        throw BadRequestException.invalidArgument(e.getMessage());
      }
      BucketProps b = cluster.requireBucket(bucket);
      if (q.bid() == null || !q.bid().equals(b.id())) {
        throw new ConflictException("BucketIdMismatch", "bucket " + b.bucket() + " is incarnation " + b.id()
            + " here, not " + q.bid());
      }
      disk.submit(() -> {
        List<Integer> missing = new ArrayList<>();
        for (int i = 0; i < q.slices().size(); i++) {
          HeldSlice h = q.slices().get(i);
          if (!slices.holds(b, h.name(), h.version(), h.index())) {
            missing.add(i);
          }
        }
        return missing;
      }).whenComplete((missing, err) -> {
        if (err != null) {
          ex.sendError(StorageErrors.of("looking up slices", ControlClient.cause(err)));
        } else {
          ex.sendJson(HttpResponseStatus.OK, new HeldAnswer(missing));
        }
      });
    }
  }

  /** {@code PUT}: the body goes to a work file on the disk pool ({@link OffLoopWrites}); committed after its end. */
  private final class Receive implements RequestHandler {
    private OffLoopWrites<SliceStore.SliceWrite> writes;
    private boolean refused;

    @Override
    public void onRequest(HttpExchange ex) {
      StoredName t = target(ex, SLICES);
      SliceRecord r = parseRecord(ex.header(RECORD_HEADER));
      if (ex.declaredLength() != r.sliceSize()) {
        throw BadRequestException.invalidArgument("the body has " + ex.declaredLength() + " bytes, the slice "
            + r.sliceSize());
      }
      try {
        writes = new OffLoopWrites<>(slices.begin(t.bucket(), t.name(), r), disk::execute, ex);
      } catch (ApiException e) {
        throw e;
      } catch (IOException | RuntimeException e) {
        throw StorageErrors.of("receiving a slice of " + t.name(), e);
      }
    }

    @Override
    public void onContent(HttpExchange ex, HttpContent chunk) {
      if (writes != null && !refused) {
        writes.write(chunk.content());
      }
    }

    @Override
    public void onEnd(HttpExchange ex) {
      OffLoopWrites<SliceStore.SliceWrite> w = writes;
      writes = null;
      if (w == null) {
        return;
      }
      w.end().thenCompose(s -> disk.submit(() -> {
        s.commit();
        return true;
      })).whenComplete((ok, err) -> {
        if (err != null) {
          w.abort();
          Throwable cause = ControlClient.cause(err);
          ex.sendError(cause instanceof ApiException a ? a : StorageErrors.of("committing a slice", cause));
        } else {
          ex.sendJson(HttpResponseStatus.OK, Map.of("stored", true));
        }
      });
    }

    @Override
    public void onAbort(HttpExchange ex, Throwable cause) {
      OffLoopWrites<SliceStore.SliceWrite> w = writes;
      writes = null;
      if (w != null) {
        w.abort();
      }
    }
  }
}
