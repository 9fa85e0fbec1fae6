package io.granary.testkit;

/** A GCS JSON API error: status, the {@code errors[].reason} code, and a message. */
final class GcsException extends RuntimeException {
  final int status;
  final String reason;

  GcsException(int status, String reason, String message) {
    super(message);
    this.status = status;
    this.reason = reason;
  }

  static GcsException notFound(String what) {
    return new GcsException(404, "notFound", "No such " + what);
  }

  static GcsException badRequest(String message) {
    return new GcsException(400, "invalid", message);
  }

  static GcsException preconditionFailed(String message) {
    return new GcsException(412, "conditionNotMet", message);
  }
}
