package io.granary.target.s3;

import io.granary.clustermap.Node;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.common.api.GranaryHeaders;
import io.granary.common.error.ApiException;
import io.granary.common.error.ObjectNotFoundException;
import io.granary.common.error.PreconditionFailedException;
import io.granary.common.error.RemoteApiException;
import io.granary.common.error.ServiceUnavailableException;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestPath;
import io.granary.common.http.client.UpstreamListener;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.s3.S3ApiException;
import io.granary.target.http.Preconditions;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.storage.ObjectStore;
import io.granary.target.storage.PutOperation;
import io.granary.target.storage.StoredObject;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiConsumer;

/**
 * Streams a copy source, whole or one byte range, into a new body on this target, for CopyObject and UploadPartCopy.
 * The source is read from this target's disk when it owns and holds it; otherwise through the owner's GET (signed,
 * on pooled connections), which for a remote bucket is the caching GET, so an uncached or stale source is fetched
 * like any cold GET. Bytes go from the read buffer to the destination's work file: nothing is held in memory
 * beyond one buffer. {@code x-amz-copy-source-if-*} conditions are applied to the source (412).
 *
 * <p>Threads: {@link #start} and the upstream callbacks run on the request's event loop; the local read and
 * {@link Destination#finish} on the disk pool. The outcome is reported once, to the callback given to
 * {@link #start}, unless {@link #abort} came first.
 *
 * @param <T> what the destination makes of the copied body
 */
final class CopyTransfer<T> implements UpstreamListener {
  /** What the copied bytes become. */
  interface Destination<T> {
    /** Starts the body once the source is known: its attributes and the number of bytes copied. */
    PutOperation begin(Source source) throws IOException;

    /** Finishes the completely written body (disk pool). */
    T finish(PutOperation op) throws IOException;
  }

  /**
   * The source as read.
   *
   * @param length bytes copied (the range's length, or the whole size)
   * @param contentType its Content-Type, or null
   * @param userMeta its user metadata
   * @param headers its stored standard headers
   */
  record Source(long length, String contentType, Map<String, String> userMeta, Map<String, String> headers) {
  }

  private final HttpExchange ex;
  private final ClusterMetadataHolder cluster;
  private final ObjectStore store;
  private final BoundedExecutor disk;
  private final CopySource sources;
  private final Destination<T> destination;
  private final HttpHeaders conditions; // x-amz-copy-source-if-* as plain HTTP conditions

  private CopyRange range;             // null: the whole source
  private BiConsumer<T, Throwable> callback;
  private PutOperation op;             // the destination being written, while a remote source streams
  private Channel upstream;            // the connection to a remote source, while it streams
  private boolean done;                // the outcome was reported, or the request went away

  CopyTransfer(HttpExchange ex, ClusterMetadataHolder cluster, ObjectStore store, BoundedExecutor disk,
      CopySource sources, Destination<T> destination) {
    this.ex = ex;
    this.cluster = cluster;
    this.store = store;
    this.disk = disk;
    this.sources = sources;
    this.destination = destination;
    this.conditions = sourceConditions(ex);
  }

  /** Copies {@code range} (null: all) of the source; reports the destination's result or the failure once. */
  void start(BucketProps srcBucket, String srcKey, CopyRange range, BiConsumer<T, Throwable> callback)
      throws IOException {
    this.range = range;
    this.callback = callback;
    Node owner = sources.owner(srcBucket, srcKey);
    // While objects move, a source this target owns may still be on its previous owner: read it through this
    // target's own GET, which brings it here first.
    boolean here = cluster.require().map().settled() || store.stat(srcBucket, srcKey) != null;
    if (sources.local(owner) && !srcBucket.isRemote() && here) {
      disk.submit(() -> copyLocal(srcBucket, srcKey)).whenComplete(this::report);
    } else {
      fetch(owner, srcBucket, srcKey);
    }
  }

  /** The request went away: stop reading, drop what was written, report nothing. */
  void abort() {
    fail(null);
  }

  /** Conditions on the source, written as the plain HTTP conditions the copy-source headers stand for. */
  private static HttpHeaders sourceConditions(HttpExchange ex) {
    HttpHeaders h = new DefaultHttpHeaders();
    copy(ex, h, "x-amz-copy-source-if-match", HttpHeaderNames.IF_MATCH);
    copy(ex, h, "x-amz-copy-source-if-none-match", HttpHeaderNames.IF_NONE_MATCH);
    copy(ex, h, "x-amz-copy-source-if-modified-since", HttpHeaderNames.IF_MODIFIED_SINCE);
    copy(ex, h, "x-amz-copy-source-if-unmodified-since", HttpHeaderNames.IF_UNMODIFIED_SINCE);
    return h;
  }

  private static void copy(HttpExchange ex, HttpHeaders to, String from, CharSequence as) {
    String v = ex.header(from);
    if (v != null) {
      to.set(as, v);
    }
  }

  /** Source on this target: read it (or its range) from disk into the destination (disk pool). */
  private T copyLocal(BucketProps srcBucket, String srcKey) throws IOException {
    StoredObject src = store.open(srcBucket, srcKey);
    if (src == null) {
      throw new ObjectNotFoundException(srcBucket.bucket().toString(), srcKey);
    }
    ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer(1 << 20, 1 << 20);
    try (FileChannel in = src.channel()) {
      ObjectMeta m = src.meta();
      if (Preconditions.evaluate(conditions, m.effectiveEtag(), m.mtime()) == Preconditions.Outcome.NOT_MODIFIED) {
        throw new PreconditionFailedException("x-amz-copy-source-if-none-match / if-modified-since failed");
      }
      long position = 0;
      long length = m.size();
      if (range != null) {
        range.requireWithin(m.size());
        position = range.first();
        length = range.length();
      }
      PutOperation put = destination.begin(new Source(length, m.contentType(), m.userMeta(), m.headers()));
      try {
        // A zero-based view of exactly this buffer's memory: internalNioBuffer would expose the whole pooled chunk.
        ByteBuffer nio = buf.nioBuffer(0, buf.capacity());
        long left = length;
        while (left > 0) {
          nio.clear();
          if (left < nio.capacity()) {
            nio.limit((int) left);
          }
          int n = in.read(nio, position);
          if (n < 0) {
            throw new IOException("copy source " + srcKey + " ended " + left + " bytes early");
          }
          position += n;
          left -= n;
          buf.setIndex(0, n);
          put.write(buf);
        }
        return destination.finish(put);
      } catch (IOException | RuntimeException e) {
        put.discard();
        throw e;
      }
    } finally {
      buf.release();
    }
  }

  /** Source on another target (or in a remote bucket): GET it, signed, and stream the answer into the destination. */
  private void fetch(Node owner, BucketProps srcBucket, String srcKey) {
    String uri = "/s3/" + srcBucket.bucket().name() + "/" + RequestPath.encodePath(srcKey);
    FullHttpRequest get = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, uri);
    URI target = URI.create(owner.url());
    get.headers().set(HttpHeaderNames.HOST, target.getHost() + ":" + target.getPort());
    get.headers().set(S3ObjectApi.PROVIDER_HEADER, srcBucket.bucket().provider().wireName());
    get.headers().set(GranaryHeaders.MAP_VERSION, cluster.require().map().version());
    get.headers().add(conditions);
    if (range != null) {
      get.headers().set(HttpHeaderNames.RANGE, "bytes=" + range.first() + "-" + range.last());
    }
    HttpUtil.setContentLength(get, 0);
    if (sources.signer() != null) {
      sources.signer().signHeaders("GET", uri, get.headers());
    }
    sources.pool().acquire(ex.eventLoop(), new InetSocketAddress(target.getHost(), target.getPort()), this)
        .addListener(f -> {
          if (!f.isSuccess()) {
            fail(new ServiceUnavailableException(ServiceUnavailableException.TARGET_OFFLINE,
                "copy source target " + owner.id() + " cannot be reached: " + f.cause(), 2));
            return;
          }
          upstream = (Channel) f.getNow();
          if (done) { // the request went away meanwhile
            release(false);
            return;
          }
          upstream.writeAndFlush(get);
        });
  }

  @Override
  public void onResponse(HttpResponse head) {
    int status = head.status().code();
    if (status == 304) {
      fail(new PreconditionFailedException("x-amz-copy-source-if-none-match / if-modified-since failed"));
      return;
    } else if (status == 416) {
      fail(new S3ApiException(HttpResponseStatus.REQUESTED_RANGE_NOT_SATISFIABLE, "InvalidRange",
          "The requested range " + range.first() + "-" + range.last() + " is not satisfiable"));
      return;
    } else if (status != (range == null ? 200 : 206)) {
      fail(status == 404 ? new S3ApiException(HttpResponseStatus.NOT_FOUND, "NoSuchKey", "the copy source does not exist")
          : new RemoteApiException(status, status == 412 ? "PreconditionFailed" : "InternalError",
              "reading the copy source failed with " + status));
      return;
    }
    HttpHeaders h = head.headers();
    try {
      if (range != null) { // a GET clips a range that runs past the end; a copy refuses it
        range.requireWithin(totalSize(h.get(HttpHeaderNames.CONTENT_RANGE)));
      }
      Map<String, String> meta = new TreeMap<>();
      for (Map.Entry<String, String> e : h) {
        String n = e.getKey().toLowerCase(Locale.ROOT);
        if (n.startsWith(S3ObjectApi.META_PREFIX)) {
          meta.put(n.substring(S3ObjectApi.META_PREFIX.length()), e.getValue());
        }
      }
      op = destination.begin(new Source(HttpUtil.getContentLength(head, -1L), h.get(HttpHeaderNames.CONTENT_TYPE),
          meta, S3ObjectApi.storedHeaders(h)));
    } catch (ApiException e) {
      fail(e);
    } catch (IOException | RuntimeException e) {
      fail(new ServiceUnavailableException("Busy", e.toString(), 1));
    }
  }

  /** The total size in a {@code Content-Range: bytes a-b/TOTAL} answer; -1 when it cannot be read. */
  private static long totalSize(String contentRange) {
    int slash = contentRange == null ? -1 : contentRange.lastIndexOf('/');
    try {
      return slash < 0 ? -1 : Long.parseLong(contentRange.substring(slash + 1).trim());
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  @Override
  public void onContent(HttpContent content) {
    try {
      if (op != null && !done) {
        op.write(content.content());
      }
      if (content instanceof LastHttpContent && op != null && !done) {
        PutOperation put = op;
        op = null;
        release(true);
        disk.submit(() -> destination.finish(put)).whenComplete((r, err) -> {
          if (err != null) {
            put.discard();
          }
          report(r, err);
        });
      }
    } catch (ApiException e) { // out of space
      fail(e);
    } catch (IOException e) {
      fail(new ServiceUnavailableException("Busy", "writing the copy failed: " + e, 1));
    } finally {
      content.release();
    }
  }

  @Override
  public void onWritabilityChanged(boolean writable) {
  }

  @Override
  public void onFailure(Throwable cause) {
    upstream = null;
    fail(new ServiceUnavailableException(ServiceUnavailableException.TARGET_OFFLINE,
        "reading the copy source failed: " + cause, 2));
  }

  private void report(T result, Throwable err) {
    if (ex.eventLoop().inEventLoop()) {
      reportOnLoop(result, err);
    } else {
      ex.eventLoop().execute(() -> reportOnLoop(result, err));
    }
  }

  private void reportOnLoop(T result, Throwable err) {
    if (done) {
      return;
    }
    done = true;
    callback.accept(result, err);
  }

  /** Ends the copy with {@code e} (null: silently), dropping the destination's work and the upstream connection. */
  private void fail(ApiException e) {
    if (done) {
      return;
    }
    done = true;
    if (op != null) {
      PutOperation put = op;
      op = null;
      disk.execute(put::discard);
    }
    release(false);
    if (e != null) {
      callback.accept(null, e);
    }
  }

  private void release(boolean reusable) {
    if (upstream != null) {
      Channel ch = upstream;
      upstream = null;
      sources.pool().release(ch, reusable);
    }
  }
}
