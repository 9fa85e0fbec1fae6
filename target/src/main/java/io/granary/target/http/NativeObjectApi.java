package io.granary.target.http;

import io.granary.common.api.GranaryHeaders;
import io.granary.common.api.ObjectAddress;
import io.granary.common.http.ByteRange;
import io.granary.common.http.ErrorRenderer;
import io.granary.common.http.HttpExchange;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.storage.PutOptions;
import io.netty.handler.codec.DateFormatter;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.Date;

/** The native API's object requests: {@code /v1/objects/BUCKET/OBJECT}, Granary checksum headers, JSON errors. */
public final class NativeObjectApi implements ObjectApi {
  private final ClusterMetadataHolder cluster;

  public NativeObjectApi(ClusterMetadataHolder cluster) {
    this.cluster = cluster;
  }

  @Override
  public ObjectRequest read(HttpExchange ex) {
    ObjectAddress addr = ObjectAddress.parse(ex);
    return new ObjectRequest(cluster.requireBucket(addr.bucket()), addr.name());
  }

  @Override
  public PutOptions putOptions(HttpExchange ex) {
    return PutOptions.nativePut(ex.declaredLength(), ClientChecksums.parse(ex.request().headers()));
  }

  @Override
  public void describe(HttpHeaders h, ObjectMeta meta) {
    h.set(HttpHeaderNames.ETAG, "\"" + meta.effectiveEtag() + "\"");
    h.set(GranaryHeaders.CHECKSUM_TYPE, meta.checksumType().wireName());
    h.set(GranaryHeaders.CHECKSUM_VALUE, meta.checksum());
    h.set(HttpHeaderNames.LAST_MODIFIED, DateFormatter.format(new Date(meta.mtime())));
  }

  @Override
  public ByteRange range(HttpExchange ex, ObjectMeta meta, HttpHeaders response) {
    return ByteRange.parse(ex.header(HttpHeaderNames.RANGE), meta.size());
  }

  @Override
  public boolean missingDeleteIsError() {
    return true;
  }

  @Override
  public ErrorRenderer errors() {
    return ErrorRenderer.JSON;
  }
}
