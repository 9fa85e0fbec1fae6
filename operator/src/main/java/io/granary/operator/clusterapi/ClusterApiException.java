package io.granary.operator.clusterapi;

/**
 * The cluster could not be reached ({@code status} 0) or refused a request ({@code status} and the error
 * {@code code} of its JSON body, e.g. 409 {@code InsufficientCapacity}).
 */
public final class ClusterApiException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int status;
  private final String code;

  public ClusterApiException(int status, String code, String message, Throwable cause) {
    super(message, cause);
    this.status = status;
    this.code = code;
  }

  /** 0 when no answer came back. */
  public int status() {
    return status;
  }

  /** The error code of the answer, or null. */
  public String code() {
    return code;
  }

  public boolean unreachable() {
    return status == 0;
  }
}
