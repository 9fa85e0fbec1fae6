package io.granary.common.error;

import io.netty.handler.codec.http.HttpResponseStatus;

/** 403: the request lacks valid credentials or a valid cluster signature. */
public final class AccessDeniedException extends ApiException {
  public AccessDeniedException(String message) {
    super(HttpResponseStatus.FORBIDDEN, "AccessDenied", message);
  }
}
