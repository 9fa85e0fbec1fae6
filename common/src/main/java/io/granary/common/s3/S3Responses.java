package io.granary.common.s3;

import io.granary.common.http.HttpExchange;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;

/** S3 answers with an XML document body (listings, multipart results, copy results). */
public final class S3Responses {
  private S3Responses() {}

  public static void xml(HttpExchange ex, HttpResponseStatus status, S3XmlDocument doc) {
    xml(ex, status, doc, EmptyHttpHeaders.INSTANCE);
  }

  /** As {@link #xml(HttpExchange, HttpResponseStatus, S3XmlDocument)}, with {@code headers} added to the answer. */
  public static void xml(HttpExchange ex, HttpResponseStatus status, S3XmlDocument doc, HttpHeaders headers) {
    ByteBuf body = doc.toByteBuf(ex.alloc());
    FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, body);
    r.headers().add(headers);
    r.headers().set(HttpHeaderNames.CONTENT_TYPE, S3XmlDocument.CONTENT_TYPE);
    r.headers().set(S3ErrorRenderer.REQUEST_ID_HEADER, S3Errors.requestId(ex.nodeId()));
    HttpUtil.setContentLength(r, body.readableBytes());
    ex.respond(r);
  }
}
