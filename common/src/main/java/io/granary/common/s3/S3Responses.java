package io.granary.common.s3;

import io.granary.common.http.HttpExchange;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;

/** S3 answers with an XML document body (listings, multipart results, copy results). */
public final class S3Responses {
  private S3Responses() {}

  public static void xml(HttpExchange ex, HttpResponseStatus status, S3XmlDocument doc) {
    ByteBuf body = doc.toByteBuf(ex.alloc());
    FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, body);
    r.headers().set(HttpHeaderNames.CONTENT_TYPE, S3XmlDocument.CONTENT_TYPE);
    r.headers().set(S3ErrorRenderer.REQUEST_ID_HEADER, S3Errors.requestId(ex.nodeId()));
    HttpUtil.setContentLength(r, body.readableBytes());
    ex.respond(r);
  }
}
