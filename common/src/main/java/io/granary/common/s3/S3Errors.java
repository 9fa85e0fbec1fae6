package io.granary.common.s3;

import io.granary.common.http.ErrorRenderer;
import io.netty.handler.codec.http.HttpMethod;
import java.util.concurrent.atomic.AtomicLong;

/** The {@link ErrorRenderer} of the S3 API: S3 XML errors with a request id, for exchanges of proxies and targets. */
public final class S3Errors {
  private static final AtomicLong SEQUENCE = new AtomicLong(System.nanoTime());

  /** Renders errors as S3 XML; the request id joins the node id and a sequence number, as S3's are opaque. */
  public static final ErrorRenderer RENDERER = (e, ex) -> S3ErrorRenderer.render(e, ex.request().uri(),
      requestId(ex.nodeId()), ex.method().equals(HttpMethod.HEAD), ex.alloc());

  private S3Errors() {}

  /** A fresh request id. */
  public static String requestId(String nodeId) {
    return nodeId + "-" + Long.toHexString(SEQUENCE.incrementAndGet());
  }
}
