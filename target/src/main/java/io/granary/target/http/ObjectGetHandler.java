package io.granary.target.http;

import io.granary.clustermap.bucket.BucketProps;
import io.granary.common.api.ObjectAddress;
import io.granary.common.error.ObjectNotFoundException;
import io.granary.common.http.ByteRange;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestHandler;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.storage.ObjectStore;
import io.granary.target.storage.StoredObject;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.io.IOException;

/**
 * {@code GET|HEAD /v1/objects/BUCKET/OBJECT}: a warm read from local disk, zero-copy (sendfile). One
 * {@code Range} gives 206; an unsatisfiable or multiple range gives 416. Runs entirely on the event loop: a
 * RocksDB point read and an open(2).
 */
final class ObjectGetHandler implements RequestHandler {
  private final ClusterMetadataHolder cluster;
  private final ObjectStore store;

  ObjectGetHandler(ClusterMetadataHolder cluster, ObjectStore store) {
    this.cluster = cluster;
    this.store = store;
  }

  @Override
  public void onRequest(HttpExchange ex) throws IOException {
    ObjectAddress addr = ObjectAddress.parse(ex);
    BucketProps bucket = cluster.requireBucket(addr.bucket());
    if (ex.method().equals(HttpMethod.HEAD)) {
      ObjectMeta meta = store.stat(bucket, addr.name());
      if (meta == null) {
        throw new ObjectNotFoundException(addr.bucket().toString(), addr.name());
      }
      HttpHeaders h = new DefaultHttpHeaders();
      ObjectHeaders.set(h, meta);
      ObjectHeaders.setBodyHeaders(h);
      h.set(HttpHeaderNames.CONTENT_LENGTH, meta.size());
      ex.sendHead(HttpResponseStatus.OK, h);
      return;
    }
    StoredObject obj = store.open(bucket, addr.name());
    if (obj == null) {
      throw new ObjectNotFoundException(addr.bucket().toString(), addr.name());
    }
    try {
      ObjectMeta meta = obj.meta();
      ByteRange range = ByteRange.parse(ex.header(HttpHeaderNames.RANGE), meta.size());
      HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1,
          range == null ? HttpResponseStatus.OK : HttpResponseStatus.PARTIAL_CONTENT);
      ObjectHeaders.set(head.headers(), meta);
      ObjectHeaders.setBodyHeaders(head.headers());
      long offset = 0;
      long length = meta.size();
      if (range != null) {
        offset = range.offset();
        length = range.length();
        head.headers().set(HttpHeaderNames.CONTENT_RANGE, range.contentRange());
      }
      HttpUtil.setContentLength(head, length);
      ex.sendFile(head, obj.channel(), offset, length);
    } catch (RuntimeException e) {
      obj.channel().close();
      throw e;
    }
  }
}
