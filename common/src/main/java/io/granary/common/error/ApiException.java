package io.granary.common.error;

import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * The base of every error a client sees. Each subclass is one condition with one HTTP status; {@link #code()} is
 * a stable, documented identifier clients may switch on (see docs/http-api.md).
 */
public abstract class ApiException extends RuntimeException {
  private final HttpResponseStatus status;
  private final String code;

  protected ApiException(HttpResponseStatus status, String code, String message) {
    this(status, code, message, null);
  }

  protected ApiException(HttpResponseStatus status, String code, String message, Throwable cause) {
    super(message, cause, false, false);
    if (status.code() < 400) {
      throw new IllegalArgumentException("an API error needs a status >= 400, got " + status);
    }
    this.status = status;
    this.code = code;
  }

  public HttpResponseStatus status() {
    return status;
  }

  public String code() {
    return code;
  }
}
