package io.granary.target.s3;

import io.granary.common.api.GranaryHeaders;
import io.granary.clustermap.acl.CannedAcl;
import io.granary.clustermap.Node;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.InvalidNameException;
import io.granary.clustermap.bucket.ObjectName;
import io.granary.common.error.BucketNotFoundException;
import io.granary.common.control.ControlClient;
import io.granary.common.error.ApiException;
import io.granary.common.error.ObjectNotFoundException;
import io.granary.common.error.PreconditionFailedException;
import io.granary.common.error.RemoteApiException;
import io.granary.common.error.ServiceUnavailableException;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.common.http.RequestPath;
import io.granary.common.http.client.UpstreamListener;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.s3.CopyObjectResult;
import io.granary.common.s3.S3ApiException;
import io.granary.common.s3.S3Responses;
import io.granary.target.http.ObjectApi;
import io.granary.target.http.ObjectHandlers;
import io.granary.target.http.Preconditions;
import io.granary.target.http.WritePreconditions;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.storage.ObjectStore;
import io.granary.target.storage.PutOperation;
import io.granary.target.storage.PutOptions;
import io.granary.target.storage.StoredObject;
import io.granary.target.storage.WriteCondition;
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
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * CopyObject ({@code PUT /s3/BUCKET/KEY} with {@code x-amz-copy-source: /SRC_BUCKET/SRC_KEY}): the destination
 * target reads the source from its own disk or from the owning target and stores it like a PUT (streamed, hashed,
 * fsynced, committed). {@code x-amz-metadata-directive} COPY (default) keeps the source's Content-Type and user
 * metadata; REPLACE takes the request's. {@code x-amz-copy-source-if-*} conditions give 412; {@code If-Match} and
 * {@code If-None-Match: *} are preconditions on the destination, decided when the copy is committed.
 *
 * <p>Remote buckets on either side: a source in a remote bucket is always read through the owner's caching GET
 * (this target's own included), so an uncached or stale source is fetched like any cold GET; a destination in a
 * remote bucket is committed through {@link ObjectHandlers#commit}, i.e. written through to its remote store
 * before it is cached, and nothing is cached if the remote refuses it.
 */
final class CopyObjectHandler implements RequestHandler, UpstreamListener {
  static final String COPY_SOURCE = "x-amz-copy-source";

  private final S3ObjectApi api;
  private final ObjectStore store;
  private final BoundedExecutor disk;
  private final CopySource sources;
  private final ObjectHandlers handlers;

  private HttpExchange ex;
  private ObjectApi.ObjectRequest dst;
  private boolean replace;
  private WriteCondition condition; // If-Match / If-None-Match on the destination, decided at its commit
  private PutOperation op;       // the destination being written
  private Channel upstream;      // the connection to a remote source, while it streams
  private boolean done;

  CopyObjectHandler(S3ObjectApi api, ObjectStore store, BoundedExecutor disk, CopySource sources,
      ObjectHandlers handlers) {
    this.api = api;
    this.handlers = handlers;
    this.store = store;
    this.disk = disk;
    this.sources = sources;
  }

  @Override
  public void onRequest(HttpExchange exchange) throws IOException {
    this.ex = exchange;
    dst = api.read(ex);
    String directive = ex.header("x-amz-metadata-directive");
    if (directive != null && !directive.equalsIgnoreCase("COPY") && !directive.equalsIgnoreCase("REPLACE")) {
      throw S3ApiException.invalidArgument("x-amz-metadata-directive must be COPY or REPLACE",
          "x-amz-metadata-directive", directive);
    }
    replace = "REPLACE".equalsIgnoreCase(directive);
    String[] src = source(ex.header(COPY_SOURCE));
    ClusterMetadataHolder cluster = api.cluster();
    // S3 names a source bucket by name alone, so it may be a registered remote bucket.
    BucketProps srcBucket = cluster.require().buckets().named(src[0])
        .orElseThrow(() -> new BucketNotFoundException(src[0]));
    String srcKey = src[1];
    if (!replace && srcBucket.equals(dst.bucket()) && srcKey.equals(dst.name())) {
      throw new S3ApiException(HttpResponseStatus.BAD_REQUEST, "InvalidRequest", "This copy request is illegal "
          + "because it is trying to copy an object to itself without changing the object's metadata");
    }
    condition = WritePreconditions.parse(ex.request().headers());
    if (!condition.isNone()) { // early, before the source is read; the commit decides
      condition.check(store.stat(dst.bucket(), dst.name()), dst.bucket().bucket().toString(), dst.name());
    }
    Node owner = sources.owner(srcBucket, srcKey);
    // While objects move, a source this target owns may still be on its previous owner: read it through this
    // target's own GET, which brings it here first.
    boolean here = cluster.require().map().settled() || store.stat(srcBucket, srcKey) != null;
    if (sources.local(owner) && !srcBucket.isRemote() && here) {
      disk.submit(() -> copyLocal(srcBucket, srcKey)).whenComplete(this::answer);
    } else {
      fetchRemote(owner, srcBucket, srcKey);
    }
  }

  /** The copy source as [bucket, key]: URL-decoded, leading slash optional, a versionId other than null refused. */
  private static String[] source(String header) {
    String s = header.trim();
    int q = s.indexOf('?');
    if (q >= 0) {
      String query = s.substring(q + 1);
      if (!query.equals("versionId=null") && !query.isEmpty()) {
        throw S3ApiException.invalidArgument("versioned copy sources are not supported", COPY_SOURCE, header);
      }
      s = s.substring(0, q);
    }
    s = RequestPath.decode(s.startsWith("/") ? s.substring(1) : s);
    int slash = s.indexOf('/');
    if (slash <= 0 || slash == s.length() - 1) {
      throw S3ApiException.invalidArgument("x-amz-copy-source must be /BUCKET/KEY", COPY_SOURCE, header);
    }
    String key = s.substring(slash + 1);
    try {
      ObjectName.requireValid(key);
    } catch (InvalidNameException e) {
      throw S3ApiException.invalidArgument(e.getMessage(), COPY_SOURCE, header);
    }
    return new String[] {s.substring(0, slash), key};
  }

  /**
   * The copy's attributes: the source's (COPY), or those of the request (REPLACE). Its ACL is the request's
   * {@code x-amz-acl} (private without one) either way: S3 never copies a source's ACL.
   */
  private PutOptions options(long size, String contentType, Map<String, String> userMeta,
      Map<String, String> headers) {
    CannedAcl acl = S3ObjectApi.acl(ex);
    if (replace) {
      HttpHeaders h = ex.request().headers();
      return new PutOptions(size, List.of(), true, h.get(HttpHeaderNames.CONTENT_TYPE), S3ObjectApi.userMeta(h),
          S3ObjectApi.storedHeaders(h), condition, acl);
    }
    return new PutOptions(size, List.of(), true, contentType, userMeta, headers, condition, acl);
  }

  /** Conditions on the source, written as the copy-source headers S3 uses. */
  private HttpHeaders sourceConditions() {
    HttpHeaders h = new DefaultHttpHeaders();
    copy(h, "x-amz-copy-source-if-match", HttpHeaderNames.IF_MATCH);
    copy(h, "x-amz-copy-source-if-none-match", HttpHeaderNames.IF_NONE_MATCH);
    copy(h, "x-amz-copy-source-if-modified-since", HttpHeaderNames.IF_MODIFIED_SINCE);
    copy(h, "x-amz-copy-source-if-unmodified-since", HttpHeaderNames.IF_UNMODIFIED_SINCE);
    return h;
  }

  private void copy(HttpHeaders to, String from, CharSequence as) {
    String v = ex.header(from);
    if (v != null) {
      to.set(as, v);
    }
  }

  /** Source on this target: read it from disk into the new version (disk pool). */
  private ObjectMeta copyLocal(BucketProps srcBucket, String srcKey) throws IOException {
    StoredObject src = store.open(srcBucket, srcKey);
    if (src == null) {
      throw new ObjectNotFoundException(srcBucket.bucket().toString(), srcKey);
    }
    ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer(1 << 20, 1 << 20);
    try (var in = src.channel()) {
      ObjectMeta m = src.meta();
      if (Preconditions.evaluate(sourceConditions(), m.effectiveEtag(), m.mtime())
          == Preconditions.Outcome.NOT_MODIFIED) {
        throw new PreconditionFailedException("x-amz-copy-source-if-none-match / if-modified-since failed");
      }
      PutOperation put = store.beginPut(dst.bucket(), dst.name(), options(m.size(), m.contentType(), m.userMeta(),
          m.headers()));
      try {
        // A zero-based view of exactly this buffer's memory: internalNioBuffer would expose the whole pooled chunk.
        ByteBuffer nio = buf.nioBuffer(0, buf.capacity());
        while (true) {
          nio.clear();
          if (in.read(nio) < 0) {
            break;
          }
          buf.setIndex(0, nio.position());
          put.write(buf);
        }
        return handlers.commit(put);
      } catch (IOException | RuntimeException e) {
        put.discard();
        throw e;
      }
    } finally {
      buf.release();
    }
  }

  /** Source on another target: GET it (signed), stream the answer into the new version. */
  private void fetchRemote(Node owner, BucketProps srcBucket, String srcKey) {
    String uri = "/s3/" + srcBucket.bucket().name() + "/" + RequestPath.encodePath(srcKey);
    FullHttpRequest get = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, uri);
    URI target = URI.create(owner.url());
    get.headers().set(HttpHeaderNames.HOST, target.getHost() + ":" + target.getPort());
    get.headers().set(S3ObjectApi.PROVIDER_HEADER, srcBucket.bucket().provider().wireName());
    get.headers().set(GranaryHeaders.MAP_VERSION, api.cluster().require().map().version());
    get.headers().add(sourceConditions());
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
          upstream.writeAndFlush(get);
        });
  }

  @Override
  public void onResponse(HttpResponse head) {
    int status = head.status().code();
    if (status == 304) {
      fail(new PreconditionFailedException("x-amz-copy-source-if-none-match / if-modified-since failed"));
    } else if (status != 200) {
      fail(status == 404 ? new S3ApiException(HttpResponseStatus.NOT_FOUND, "NoSuchKey", "the copy source does not exist")
          : new RemoteApiException(status, status == 412 ? "PreconditionFailed" : "InternalError",
              "reading the copy source failed with " + status));
    } else {
      HttpHeaders h = head.headers();
      Map<String, String> meta = new TreeMap<>();
      for (Map.Entry<String, String> e : h) {
        String n = e.getKey().toLowerCase(Locale.ROOT);
        if (n.startsWith(S3ObjectApi.META_PREFIX)) {
          meta.put(n.substring(S3ObjectApi.META_PREFIX.length()), e.getValue());
        }
      }
      try {
        op = store.beginPut(dst.bucket(), dst.name(), options(HttpUtil.getContentLength(head, -1L),
            h.get(HttpHeaderNames.CONTENT_TYPE), meta, S3ObjectApi.storedHeaders(h)));
      } catch (IOException | RuntimeException e) {
        fail(e instanceof ApiException api ? api : new ServiceUnavailableException("Busy", e.toString(), 1));
      }
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
        disk.submit(() -> handlers.commit(put)).whenComplete(this::answer);
      }
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

  @Override
  public void onAbort(HttpExchange exchange, Throwable cause) {
    fail(null);
  }

  private void answer(ObjectMeta meta, Throwable err) {
    if (err != null) {
      ex.sendError(ControlClient.cause(err));
    } else {
      S3Responses.xml(ex, HttpResponseStatus.OK,
          new CopyObjectResult(Instant.ofEpochMilli(meta.mtime()), meta.effectiveEtag()));
    }
  }

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
      ex.sendError(e);
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
