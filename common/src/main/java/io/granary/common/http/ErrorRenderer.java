package io.granary.common.http;

import io.granary.common.error.ApiException;
import io.netty.handler.codec.http.FullHttpResponse;

/** Turns an API error into the response a client of one API expects: native JSON, or S3 XML. */
@FunctionalInterface
public interface ErrorRenderer {
  /** The native API's JSON form, {@code {"code","message","node"}}. */
  ErrorRenderer JSON = (e, ex) -> HttpExchange.errorResponse(e, ex.nodeId(), ex.alloc());

  /** The full response for {@code e}; a HEAD's body is dropped by the caller. */
  FullHttpResponse render(ApiException e, HttpExchange exchange);

  /** The code the body of {@link #render}'s response carries (for the errors-by-code metric). */
  default String code(ApiException e) {
    return e.code();
  }
}
