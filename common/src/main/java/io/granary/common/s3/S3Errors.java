package io.granary.common.s3;

import io.granary.common.error.ApiException;
import io.granary.common.http.ErrorRenderer;
import io.granary.common.http.HttpExchange;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import java.util.concurrent.atomic.AtomicLong;

/** The {@link ErrorRenderer} of the S3 API: S3 XML errors with a request id, for exchanges of proxies and targets. */
public final class S3Errors {
  private static final AtomicLong SEQUENCE = new AtomicLong(System.nanoTime());

  /** Renders errors as S3 XML; the request id joins the node id and a sequence number, as S3's are opaque. */
  public static final ErrorRenderer RENDERER = new ErrorRenderer() {
    @Override
    public FullHttpResponse render(ApiException e, HttpExchange ex) {
      return S3ErrorRenderer.render(e, resource(ex.path().raw()), requestId(ex.nodeId()),
          ex.method().equals(HttpMethod.HEAD), ex.alloc());
    }

    @Override
    public String code(ApiException e) {
      return S3ErrorCodes.of(e).code();
    }
  };

  private S3Errors() {}

  /**
   * The Error document's Resource: the request path without its query (which may hold a presigned signature)
   * and without the {@code /s3} mount of the S3 API on proxies and targets. No bucket is named "s3" (names have
   * at least 3 characters), so the strip is unambiguous.
   */
  static String resource(String path) {
    if (path.equals("/s3")) {
      return "/";
    }
    return path.startsWith("/s3/") ? path.substring(3) : path;
  }

  /** A fresh request id. */
  public static String requestId(String nodeId) {
    return nodeId + "-" + Long.toHexString(SEQUENCE.incrementAndGet());
  }
}
