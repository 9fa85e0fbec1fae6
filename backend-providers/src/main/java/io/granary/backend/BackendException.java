package io.granary.backend;

import java.io.IOException;

/** A remote store failure, final after the backend's own retries, classified so callers can answer correctly. */
public class BackendException extends IOException {
  /** What went wrong, and the HTTP status a Granary client should see for it. */
  public enum Kind {
    /** The bucket or object does not exist: 404. */
    NOT_FOUND(404),
    /** The credentials were refused or lack permission: 403. */
    ACCESS_DENIED(403),
    /** The object changed while it was being read in pieces: 412 internally; callers restart the read. */
    CHANGED(412),
    /** The requested range is outside the object: 416. */
    INVALID_RANGE(416),
    /** Throttled, unavailable, timed out or unreachable after retries: 503 with Retry-After. */
    UNAVAILABLE(503),
    /** The body ended before its promised length: 502. */
    TRUNCATED(502),
    /** Anything else the remote answered (a 4xx/5xx without a better kind): 502. */
    OTHER(502);

    private final int httpStatus;

    Kind(int httpStatus) {
      this.httpStatus = httpStatus;
    }

    public int httpStatus() {
      return httpStatus;
    }
  }

  private final Kind kind;
  private final int remoteStatus;

  /**
   * @param remoteStatus the remote's HTTP status, or 0 when there was no answer (connection error, timeout)
   */
  public BackendException(Kind kind, int remoteStatus, String message, Throwable cause) {
    super(message, cause);
    this.kind = kind;
    this.remoteStatus = remoteStatus;
  }

  public BackendException(Kind kind, int remoteStatus, String message) {
    this(kind, remoteStatus, message, null);
  }

  public Kind kind() {
    return kind;
  }

  /** The remote's HTTP status, or 0 when it never answered. */
  public int remoteStatus() {
    return remoteStatus;
  }
}
