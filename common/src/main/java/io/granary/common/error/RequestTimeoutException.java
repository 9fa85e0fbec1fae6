package io.granary.common.error;

import io.netty.handler.codec.http.HttpResponseStatus;

/** 408: the client stopped sending the request body. */
public final class RequestTimeoutException extends ApiException {
  public RequestTimeoutException(String message) {
    super(HttpResponseStatus.REQUEST_TIMEOUT, "RequestTimeout", message);
  }
}
