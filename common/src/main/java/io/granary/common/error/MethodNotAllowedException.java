package io.granary.common.error;

import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;

/** 405: the endpoint exists but does not take this method. */
public final class MethodNotAllowedException extends ApiException {
  public MethodNotAllowedException(HttpMethod method, String path) {
    super(HttpResponseStatus.METHOD_NOT_ALLOWED, "MethodNotAllowed", method + " is not allowed on '" + path + "'");
  }
}
