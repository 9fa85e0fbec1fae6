package io.granary.common.error;

import io.netty.handler.codec.http.HttpResponseStatus;

/** 500: a fault inside the node (I/O error, corrupt metadata). The message names the operation that failed. */
public final class InternalErrorException extends ApiException {
  public InternalErrorException(String message, Throwable cause) {
    super(HttpResponseStatus.INTERNAL_SERVER_ERROR, "InternalError", message, cause);
  }
}
