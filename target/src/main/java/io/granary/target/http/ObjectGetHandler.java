package io.granary.target.http;

import io.granary.common.http.ByteRange;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.storage.ObjectStore;
import io.granary.target.storage.StoredObject;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.io.IOException;

/**
 * GET and HEAD of an object: a warm read from local disk, zero-copy (sendfile). Conditions (If-Match and
 * friends) give 412 or 304; one {@code Range} gives 206; what the API refuses gives 416. Runs entirely on the
 * event loop: a RocksDB point read and an open(2). A bucket with {@code checksum.validateWarmGet} has its GETs
 * served by {@link WarmValidation} instead (re-hashed, off the loop).
 */
public final class ObjectGetHandler implements RequestHandler {
  private final ObjectApi api;
  private final ObjectStore store;
  private final WarmValidation validation;
  private final Reread again; // serves the GET anew after validation repaired the object
  private boolean retried; // the GET is being served anew: validation must not ask again
  private WarmValidation.Served validated; // a validated answer streaming, or null

  /** Serves the request anew (the caller's full path: a remote bucket's handler may fetch the object again). */
  @FunctionalInterface
  public interface Reread {
    void serve(HttpExchange ex, ObjectApi.ObjectRequest req) throws IOException;
  }

  public ObjectGetHandler(ObjectApi api, ObjectStore store) {
    this(api, store, WarmValidation.OFF, null);
  }

  /** @param again how to serve the GET anew after a repair; null: this handler's own {@link #serve} */
  public ObjectGetHandler(ObjectApi api, ObjectStore store, WarmValidation validation, Reread again) {
    this.api = api;
    this.store = store;
    this.validation = validation;
    this.again = again == null ? this::serve : again;
  }

  @Override
  public void onRequest(HttpExchange ex) throws IOException {
    ex.useErrorRenderer(api.errors());
    serve(ex, api.read(ex));
  }

  /** Answers a GET or HEAD of an object already named by {@code req} (a caller that has parsed the request). */
  public void serve(HttpExchange ex, ObjectApi.ObjectRequest req) throws IOException {
    if (ex.method().equals(HttpMethod.HEAD)) {
      ObjectMeta meta = store.stat(req.bucket(), req.name());
      if (meta == null) {
        throw api.notFound(ex, req);
      }
      api.authorizeRead(ex, meta);
      HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
      api.describe(head.headers(), meta);
      if (!notModified(ex, meta, head.headers())) {
        prepare(ex, meta, head);
        ex.sendHead(head.status(), head.headers());
      }
      return;
    }
    StoredObject obj = store.open(req.bucket(), req.name());
    if (obj == null) {
      throw api.notFound(ex, req);
    }
    serve(ex, obj, req);
  }

  /**
   * Answers a GET (or HEAD) with {@code obj}, opened by the caller (an object rebuilt from erasure-coded slices):
   * conditions, ranges and headers as for a stored one; the channel is closed once sent.
   */
  public void serve(HttpExchange ex, StoredObject obj) throws IOException {
    serve(ex, obj, null); // a rebuilt object was verified against its checksum as it was rebuilt
  }

  /** @param req the request, for a bucket whose warm GETs are validated; null: served unvalidated */
  private void serve(HttpExchange ex, StoredObject obj, ObjectApi.ObjectRequest req) throws IOException {
    try {
      api.authorizeRead(ex, obj.meta());
      HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
      api.describe(head.headers(), obj.meta());
      if (notModified(ex, obj.meta(), head.headers())) {
        obj.channel().close();
        return;
      }
      ByteRange range = prepare(ex, obj.meta(), head);
      if (req != null && validation.applies(req.bucket(), obj.meta())) {
        validated = validation.serve(ex, head, obj, range, req.bucket(), req.name(),
            retried ? null : () -> reread(ex, req));
        return;
      }
      long offset = range == null ? 0 : range.offset();
      ex.sendFile(head, obj.channel(), offset, HttpUtil.getContentLength(head));
    } catch (IOException | RuntimeException e) {
      obj.channel().close();
      throw e;
    }
  }

  private void reread(HttpExchange ex, ObjectApi.ObjectRequest req) {
    retried = true;
    validated = null;
    try {
      again.serve(ex, req);
    } catch (Throwable t) {
      ex.sendError(t);
    }
  }

  @Override
  public void onClientWritabilityChanged(HttpExchange ex, boolean writable) {
    if (validated != null && writable) {
      validated.clientWritable();
    }
  }

  @Override
  public void onClientClosed(HttpExchange ex) {
    if (validated != null) {
      validated.clientClosed();
    }
  }

  private ByteRange prepare(HttpExchange ex, ObjectMeta meta, HttpResponse head) {
    return prepareRead(api, ex, meta, head);
  }

  /**
   * Completes the described response head of a GET or HEAD: status, length, range and the request's header
   * overrides. Returns the range to serve, or null for the whole object.
   */
  public static ByteRange prepareRead(ObjectApi api, HttpExchange ex, ObjectMeta meta, HttpResponse head) {
    HttpHeaders h = head.headers();
    api.decorateRead(ex, h, meta);
    ByteRange range = api.range(ex, meta, h);
    h.set(HttpHeaderNames.ACCEPT_RANGES, HttpHeaderValues.BYTES);
    if (range == null) {
      HttpUtil.setContentLength(head, meta.size());
    } else {
      head.setStatus(HttpResponseStatus.PARTIAL_CONTENT);
      h.set(HttpHeaderNames.CONTENT_RANGE, range.contentRange());
      HttpUtil.setContentLength(head, range.length());
    }
    return range;
  }

  /**
   * Evaluates the request's conditions against {@code meta}; answers 304 and returns true when the client's copy is
   * current.
   */
  public static boolean notModified(HttpExchange ex, ObjectMeta meta, HttpHeaders described) {
    if (Preconditions.evaluate(ex.request().headers(), meta.effectiveEtag(), meta.mtime())
        == Preconditions.Outcome.NOT_MODIFIED) {
      HttpHeaders h = new DefaultHttpHeaders();
      h.set(HttpHeaderNames.ETAG, described.get(HttpHeaderNames.ETAG));
      h.set(HttpHeaderNames.LAST_MODIFIED, described.get(HttpHeaderNames.LAST_MODIFIED));
      ex.sendHead(HttpResponseStatus.NOT_MODIFIED, h);
      return true;
    }
    return false;
  }
}
