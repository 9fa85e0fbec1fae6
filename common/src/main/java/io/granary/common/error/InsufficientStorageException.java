package io.granary.common.error;

import io.netty.handler.codec.http.HttpResponseStatus;

/** 507: the mountpath chosen for the object has no room for it; nothing was stored. */
public final class InsufficientStorageException extends ApiException {
  public InsufficientStorageException(String message) {
    super(HttpResponseStatus.INSUFFICIENT_STORAGE, "InsufficientStorage", message);
  }
}
