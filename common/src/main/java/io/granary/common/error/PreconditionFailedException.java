package io.granary.common.error;

import io.netty.handler.codec.http.HttpResponseStatus;

/** 412: an If-Match or If-Unmodified-Since condition of the request does not hold. */
public final class PreconditionFailedException extends ApiException {
  public PreconditionFailedException(String message) {
    super(HttpResponseStatus.PRECONDITION_FAILED, "PreconditionFailed", message);
  }
}
