package io.granary.common.error;

import io.netty.handler.codec.http.HttpResponseStatus;

/** An error another node answered with (e.g. the primary refusing a bucket change), passed on as it came. */
public final class RemoteApiException extends ApiException {
  public RemoteApiException(int status, String code, String message) {
    super(HttpResponseStatus.valueOf(status), code, message);
  }
}
