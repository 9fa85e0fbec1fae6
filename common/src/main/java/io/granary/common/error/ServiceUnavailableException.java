package io.granary.common.error;

import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * 503 with {@code Retry-After}: the request is valid but cannot be served now (the owning target is offline, no
 * targets have joined, the primary cannot be reached). Retrying later succeeds; it never means "not found".
 */
public final class ServiceUnavailableException extends ApiException {
  public static final String TARGET_OFFLINE = "TargetOffline";
  public static final String NO_TARGETS = "NoTargets";
  public static final String PRIMARY_UNREACHABLE = "PrimaryUnreachable";
  /** This proxy was the primary but lost its term (Lease election): it writes no metadata; retry, on any proxy. */
  public static final String NOT_PRIMARY = "NotPrimary";
  public static final String BUSY = "Busy";
  /** The node holds as many client connections as it may (--max-connections). */
  public static final String TOO_MANY_CONNECTIONS = "TooManyConnections";
  /** A disk of the target failed under the request, or the target has no disk to place an object on. */
  public static final String MOUNTPATH_UNAVAILABLE = "MountpathUnavailable";
  /**
   * A change of an object's record was sent to a target that no longer owns the object under the map it holds (the
   * sender routed by an older map): the change is made only on the owner, so retrying reaches it.
   */
  public static final String OBJECT_MOVING = "ObjectMoving";

  private final int retryAfterSeconds;

  public ServiceUnavailableException(String code, String message, int retryAfterSeconds) {
    this(code, message, retryAfterSeconds, null);
  }

  public ServiceUnavailableException(String code, String message, int retryAfterSeconds, Throwable cause) {
    super(HttpResponseStatus.SERVICE_UNAVAILABLE, code, message, cause);
    this.retryAfterSeconds = retryAfterSeconds;
  }

  public int retryAfterSeconds() {
    return retryAfterSeconds;
  }
}
