package io.granary.target.rebalance;

/**
 * A copy did not reach its receiver. Retryable failures (the receiver unreachable, restarting, busy, or not yet
 * knowing the bucket) are worth another attempt later; the others (the content does not match its checksum, the
 * receiver is full) are not, for this walk.
 */
final class TransferException extends Exception {
  private final int status; // the receiver's HTTP status, or 0 when it did not answer
  private final boolean retryable;

  TransferException(String message, int status, boolean retryable, Throwable cause) {
    super(message, cause);
    this.status = status;
    this.retryable = retryable;
  }

  /** The receiver answered {@code status} (not 200) with {@code message}. */
  static TransferException answered(int status, String message) {
    boolean retry = status == 503 || status == 500 || status == 404 || status == 409 || status == 408;
    return new TransferException(message, status, retry, null);
  }

  /** The receiver could not be reached, or the connection failed before it answered. */
  static TransferException unreachable(String message, Throwable cause) {
    return new TransferException(message, 0, true, cause);
  }

  int status() {
    return status;
  }

  boolean retryable() {
    return retryable;
  }
}
