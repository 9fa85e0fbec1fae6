package io.granary.common.error;

import io.netty.handler.codec.http.HttpResponseStatus;

/** 505: the request line names an HTTP version other than HTTP/1.0 or HTTP/1.1 (e.g. HTTP/2.0 over HTTP/1 framing). */
public final class HttpVersionNotSupportedException extends ApiException {
  public HttpVersionNotSupportedException(String version) {
    super(HttpResponseStatus.HTTP_VERSION_NOT_SUPPORTED, "HttpVersionNotSupported",
        "HTTP version " + version + " is not supported; send HTTP/1.1");
  }
}
