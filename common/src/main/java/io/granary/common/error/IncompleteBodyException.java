package io.granary.common.error;

import io.netty.handler.codec.http.HttpResponseStatus;

/** 400: the request body ended before its declared length; nothing was stored. */
public final class IncompleteBodyException extends ApiException {
  public IncompleteBodyException(long received, long declared) {
    super(HttpResponseStatus.BAD_REQUEST, "IncompleteBody", declared >= 0
        ? "request body ended after " + received + " of " + declared + " bytes; nothing was stored"
        : "request body ended after " + received + " bytes without its final chunk; nothing was stored");
  }
}
