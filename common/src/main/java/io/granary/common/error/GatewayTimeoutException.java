package io.granary.common.error;

import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * 504: the node that should have answered (a target behind a proxy's relay) took a complete request and did not
 * start its answer in time. Whether the request took effect there is unknown, as for any gateway timeout.
 */
public final class GatewayTimeoutException extends ApiException {
  public static final String CODE = "GatewayTimeout";

  public GatewayTimeoutException(String message) {
    super(HttpResponseStatus.GATEWAY_TIMEOUT, CODE, message);
  }
}
