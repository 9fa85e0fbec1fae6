package io.granary.target.coldget;

import io.granary.backend.RemoteObject;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.common.api.GranaryHeaders;
import io.granary.common.error.ObjectNotFoundException;
import io.granary.common.http.ByteRange;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.target.http.GrowingFileResponse;
import io.granary.target.http.ObjectApi;
import io.granary.target.http.ObjectGetHandler;
import io.granary.target.http.WarmValidation;
import io.granary.target.meta.ObjectMeta;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * GET and HEAD of an object in any bucket: local buckets and current cached copies are served warm by
 * {@link ObjectGetHandler}; for remote buckets, a copy past its TTL (or {@code ?latest=true}) is revalidated first,
 * and a missing or stale object is fetched cold ({@link ColdObjects}) while the client is sent its bytes as they
 * land. A cold HEAD asks the remote and fetches nothing. A range the fetch has not reached yet is read from the
 * remote directly ({@link RangedRead}), so it does not wait for the whole object.
 */
public final class RemoteGetHandler implements RequestHandler {
  /** A range starting this close to what is already on disk waits for the fetch instead of its own remote read. */
  private static final long NEAR = 4L << 20;

  private final ObjectApi api;
  private final ColdObjects cold;
  private final ObjectGetHandler warm;
  private GrowingFileResponse streaming;

  public RemoteGetHandler(ObjectApi api, ColdObjects cold) {
    this(api, cold, WarmValidation.OFF);
  }

  /**
   * @param validation validation of warm GETs: a cached copy it drops as corrupt is fetched again, through
   *     {@link #serve} (the object is then missing: a cold GET)
   */
  public RemoteGetHandler(ObjectApi api, ColdObjects cold, WarmValidation validation) {
    this.api = api;
    this.cold = cold;
    this.warm = new ObjectGetHandler(api, cold.store(), validation, this::serveAgain);
  }

  @Override
  public void onRequest(HttpExchange ex) throws IOException {
    ex.useErrorRenderer(api.errors());
    ObjectApi.ObjectRequest req = api.read(ex);
    BucketProps bucket = req.bucket();
    if (!bucket.isRemote()) {
      warm.serve(ex, req);
      return;
    }
    boolean latest = "true".equalsIgnoreCase(ex.queryParam("latest"));
    CompletableFuture<Void> earlierFetch = latest ? cold.fetchInFlightEnded(bucket, req.name()) : null;
    if (earlierFetch != null && !earlierFetch.isDone()) {
      // The remote's latest: not a fetch that began before this was asked (see ColdObjects#fetchInFlightEnded).
      ex.readRequestBody(false);
      earlierFetch.whenComplete((v, err) -> ex.onLoop(() -> {
        try {
          ex.readRequestBody(true);
          serve(ex, req, true);
        } catch (Throwable t) {
          ex.sendError(t);
        }
      }));
      return;
    }
    serve(ex, req, latest);
  }

  /** After validation repaired a local object or dropped a cached copy: warm again, or fetched from the remote. */
  private void serveAgain(HttpExchange ex, ObjectApi.ObjectRequest req) throws IOException {
    if (req.bucket().isRemote()) {
      serve(ex, req, false);
    } else {
      warm.serve(ex, req);
    }
  }

  private void serve(HttpExchange ex, ObjectApi.ObjectRequest req, boolean latest) throws IOException {
    BucketProps bucket = req.bucket();
    ObjectMeta meta = cold.store().stat(bucket, req.name());
    if (meta == null) {
      serveCold(ex, req, null);
    } else if (!cold.mustRevalidate(bucket, req.name(), meta, latest)) {
      warmOrCold(ex, req);
    } else {
      cold.revalidate(bucket, req.name(), meta).whenComplete((verdict, err) -> ex.onLoop(() -> {
        try {
          if (err != null) {
            throw RemoteErrors.toApi(bucket, req.name(), unwrap(err));
          }
          switch (verdict) {
            case CURRENT -> warmOrCold(ex, req);
            case GONE -> throw new ObjectNotFoundException(bucket.bucket().toString(), req.name());
            case FETCH -> serveCold(ex, req, meta);
          }
        } catch (Throwable t) {
          ex.sendError(t);
        }
      }));
    }
  }

  /**
   * Serves the cached copy; if eviction took it since it was looked up, fetches it again. A GET answered from the
   * copy (200, 206 or 304) is a cache hit; one that needs the fetch, a miss (counted by serveCold).
   */
  private void warmOrCold(HttpExchange ex, ObjectApi.ObjectRequest req) throws IOException {
    try {
      warm.serve(ex, req);
    } catch (ObjectNotFoundException evicted) {
      serveCold(ex, req, null);
      return;
    }
    if (ex.method().equals(HttpMethod.GET)) {
      cold.stats().hit(req.bucket().bucket().provider());
    }
  }

  /** {@code seen}: the stale copy the store holds, or null (see {@link ColdObjects#join}). */
  private void serveCold(HttpExchange ex, ObjectApi.ObjectRequest req, ObjectMeta seen) throws IOException {
    BucketProps bucket = req.bucket();
    if (ex.method().equals(HttpMethod.GET)) {
      cold.stats().miss(bucket.bucket().provider()); // whatever the remote then answers (a 404 is a miss too)
    }
    if (ex.method().equals(HttpMethod.HEAD)) {
      cold.head(bucket, req.name()).whenComplete((object, err) -> ex.onLoop(() -> {
        try {
          if (err != null) {
            throw RemoteErrors.toApi(bucket, req.name(), unwrap(err));
          }
          HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
          if (prepare(ex, bucket, object, head) != NOT_MODIFIED) {
            ex.sendHead(head.status(), head.headers());
          }
        } catch (Throwable t) {
          ex.sendError(t);
        }
      }));
      return;
    }
    Fetch fetch = cold.join(bucket, req.name(), seen, true, ex.eventLoop());
    if (fetch == null) { // committed a moment ago
      warm.serve(ex, req);
      return;
    }
    fetch.started().whenComplete((object, err) -> ex.onLoop(() -> {
      boolean handedOver = false;
      boolean streams = false;
      try {
        if (err != null) {
          throw RemoteErrors.toApi(bucket, req.name(), unwrap(err));
        }
        HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        ByteRange range = prepare(ex, bucket, object, head);
        if (range == NOT_MODIFIED) {
          return;
        }
        long from = range == null ? 0 : range.offset();
        long to = range == null ? object.size() : range.offset() + range.length();
        if (range != null && from > fetch.available() + NEAR) {
          fetch.release();
          handedOver = true;
          passThrough(ex, bucket, object, head, from, to - from);
          return;
        }
        streaming = new GrowingFileResponse(ex, fetch, head, from, to);
        handedOver = true;
        streams = true; // the response tells the fetch when its first bytes are out
        streaming.start();
      } catch (Throwable t) {
        ex.sendError(t);
      } finally {
        if (!streams) {
          fetch.firstBytesSent();
        }
        if (!handedOver) {
          fetch.release();
        }
      }
    }));
  }

  private void passThrough(HttpExchange ex, BucketProps bucket, RemoteObject object, HttpResponse head, long from,
      long length) {
    cold.pool().submit(() -> {
      RangedRead.serve(ex, head, cold.backend(bucket), bucket.bucket().name(), object, from, length);
      return null;
    }).whenComplete((ok, err) -> {
      if (err != null) {
        ex.onLoop(() -> {
          if (ex.answered()) {
            ex.abortConnection();
          } else {
            ex.sendError(RemoteErrors.toApi(bucket, object.key(), unwrap(err)));
          }
        });
      }
    });
  }

  private static final ByteRange NOT_MODIFIED = new ByteRange(0, 0, 0);

  /**
   * Fills the response head from the remote's attributes (what the object will be once cached): status,
   * length, range, conditions. Returns the range, null for the whole object, or {@link #NOT_MODIFIED} when a 304
   * was sent.
   */
  private ByteRange prepare(HttpExchange ex, BucketProps bucket, RemoteObject object, HttpResponse head) {
    ObjectMeta meta = provisional(bucket, object);
    api.authorizeRead(ex, meta); // not cached yet, so private: unsigned clients never read remote buckets
    HttpHeaders h = head.headers();
    api.describe(h, meta);
    if (meta.checksum().isEmpty()) { // nothing vouched for yet: say nothing rather than something unverified
      h.remove(GranaryHeaders.CHECKSUM_TYPE);
      h.remove(GranaryHeaders.CHECKSUM_VALUE);
    }
    if (ObjectGetHandler.notModified(ex, meta, h)) {
      return NOT_MODIFIED;
    }
    return ObjectGetHandler.prepareRead(api, ex, meta, head);
  }

  /** The object as it will be recorded once fetched, from what the remote says now. */
  private static ObjectMeta provisional(BucketProps bucket, RemoteObject object) {
    String etag = FetchTask.etagOf(bucket, object);
    // Only an MD5 bucket's fetch verifies the ETag's MD5; in any other the ETag vouches for nothing yet.
    boolean md5 = bucket.checksum() == ChecksumType.MD5 && object.md5() != null;
    return new ObjectMeta(object.size(), md5 ? ChecksumType.MD5 : bucket.checksum(), md5 ? object.md5() : "",
        object.lastModified() > 0 ? object.lastModified() : System.currentTimeMillis(), etag, object.contentType(),
        object.userMeta(), Map.of(), List.of());
  }

  private static Throwable unwrap(Throwable t) {
    return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
  }

  @Override
  public void onClientWritabilityChanged(HttpExchange ex, boolean writable) {
    if (streaming != null && writable) {
      streaming.clientWritable();
    }
    warm.onClientWritabilityChanged(ex, writable);
  }

  @Override
  public void onClientClosed(HttpExchange ex) {
    if (streaming != null) {
      streaming.clientClosed();
    }
    warm.onClientClosed(ex);
  }
}
