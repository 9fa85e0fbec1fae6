package io.granary.common.s3;

import io.granary.common.error.ApiException;
import io.granary.common.error.RangeNotSatisfiableException;
import io.granary.common.error.ServiceUnavailableException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.util.Map;

/**
 * Builds the S3 form of an error response: the status and code of {@link S3ErrorCodes}, an {@link ErrorDocument}
 * body, {@code Content-Type: application/xml} and {@code x-amz-request-id} (plus {@code x-amz-id-2} when a host
 * id is given). As the native JSON form ({@code HttpExchange.errorResponse}) does, a 503 carries
 * {@code Retry-After} and a 416 {@code Content-Range: bytes *&#47;size}. The answer to a HEAD request has the same
 * status and headers, including the Content-Length the body would have, but no body.
 */
public final class S3ErrorRenderer {
  public static final String REQUEST_ID_HEADER = "x-amz-request-id";
  public static final String HOST_ID_HEADER = "x-amz-id-2";

  private S3ErrorRenderer() {}

  /** As {@link #render(ApiException, String, String, String, boolean, ByteBufAllocator)} without a host id. */
  public static FullHttpResponse render(ApiException e, String resource, String requestId, boolean head,
      ByteBufAllocator alloc) {
    return render(e, resource, requestId, null, head, alloc);
  }

  /**
   * The response for {@code e}.
   *
   * @param resource the bucket or object the request named ({@code /bucket/key}), or {@code null}
   * @param requestId this request's id, or {@code null}
   * @param hostId the answering node's id, or {@code null}
   * @param head whether the request was HEAD: then the response has no body
   */
  public static FullHttpResponse render(ApiException e, String resource, String requestId, String hostId,
      boolean head, ByteBufAllocator alloc) {
    S3ErrorCode s3 = S3ErrorCodes.of(e);
    Map<String, String> details = e instanceof S3ApiException s3e ? s3e.details() : Map.of();
    ErrorDocument doc = new ErrorDocument(s3.code(), e.getMessage(), details, resource, requestId, hostId);
    ByteBuf body = doc.toByteBuf(alloc);
    int length = body.readableBytes();
    if (head) {
      body.release();
      body = Unpooled.EMPTY_BUFFER;
    }
    FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, s3.status(), body);
    HttpHeaders h = r.headers();
    h.set(HttpHeaderNames.CONTENT_TYPE, S3XmlDocument.CONTENT_TYPE);
    HttpUtil.setContentLength(r, length);
    if (requestId != null) {
      h.set(REQUEST_ID_HEADER, requestId);
    }
    if (hostId != null) {
      h.set(HOST_ID_HEADER, hostId);
    }
    if (e instanceof ServiceUnavailableException su) {
      h.set(HttpHeaderNames.RETRY_AFTER, su.retryAfterSeconds());
    }
    if (e instanceof RangeNotSatisfiableException rn && rn.objectSize() >= 0) {
      h.set(HttpHeaderNames.CONTENT_RANGE, "bytes */" + rn.objectSize());
    }
    return r;
  }
}
