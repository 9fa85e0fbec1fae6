package io.granary.target.http;

import io.granary.common.api.GranaryHeaders;
import io.granary.target.meta.ObjectMeta;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.DateFormatter;
import java.util.Date;

/** The headers that describe a stored object in GET, HEAD and PUT responses. */
final class ObjectHeaders {
  private ObjectHeaders() {}

  static void set(HttpHeaders h, ObjectMeta meta) {
    h.set(HttpHeaderNames.ETAG, "\"" + meta.checksum() + "\"");
    h.set(GranaryHeaders.CHECKSUM_TYPE, meta.checksumType().wireName());
    h.set(GranaryHeaders.CHECKSUM_VALUE, meta.checksum());
    h.set(HttpHeaderNames.LAST_MODIFIED, DateFormatter.format(new Date(meta.mtime())));
  }

  static void setBodyHeaders(HttpHeaders h) {
    h.set(HttpHeaderNames.ACCEPT_RANGES, HttpHeaderValues.BYTES);
    h.set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_OCTET_STREAM);
  }
}
