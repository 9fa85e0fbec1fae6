package io.granary.common.error;

import io.netty.handler.codec.http.HttpResponseStatus;

/** 416: the Range cannot be served (outside the object, or several ranges). */
public final class RangeNotSatisfiableException extends ApiException {
  private final long objectSize;

  public RangeNotSatisfiableException(String message, long objectSize) {
    super(HttpResponseStatus.REQUESTED_RANGE_NOT_SATISFIABLE, "InvalidRange", message);
    this.objectSize = objectSize;
  }

  /** The object size, for {@code Content-Range: bytes * /size}; negative when unknown. */
  public long objectSize() {
    return objectSize;
  }
}
