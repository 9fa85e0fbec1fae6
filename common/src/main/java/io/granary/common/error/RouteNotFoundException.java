package io.granary.common.error;

import io.netty.handler.codec.http.HttpResponseStatus;

/** 404: no API endpoint at this path. */
public final class RouteNotFoundException extends ApiException {
  public RouteNotFoundException(String path) {
    super(HttpResponseStatus.NOT_FOUND, "NoSuchEndpoint", "no API endpoint at '" + path + "'");
  }
}
