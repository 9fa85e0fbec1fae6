package io.granary.common.error;

import io.netty.handler.codec.http.HttpResponseStatus;

/** 413: a body larger than the endpoint accepts (admin JSON bodies are small). */
public final class PayloadTooLargeException extends ApiException {
  public PayloadTooLargeException(String message) {
    super(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, "EntityTooLarge", message);
  }
}
