package io.granary.common.error;

import io.netty.handler.codec.http.HttpResponseStatus;

/** 404: the object does not exist in its bucket. */
public final class ObjectNotFoundException extends ApiException {
  public ObjectNotFoundException(String bucket, String object) {
    super(HttpResponseStatus.NOT_FOUND, "ObjectNotFound", "object '" + object + "' not found in bucket '" + bucket + "'");
  }
}
