package io.granary.common.error;

import io.netty.handler.codec.http.HttpResponseStatus;

/** 501: a valid request for a feature Granary does not offer (an S3 sub-resource such as ?acl or ?lifecycle). */
public final class NotImplementedException extends ApiException {
  public NotImplementedException(String message) {
    super(HttpResponseStatus.NOT_IMPLEMENTED, "NotImplemented", message);
  }
}
