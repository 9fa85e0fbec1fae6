package io.granary.backend.s3;

import io.granary.backend.BackendException;
import io.granary.backend.BackendException.Kind;
import java.net.SocketTimeoutException;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * Turns SDK failures into {@link BackendException}s. Messages name the operation, bucket and key, the status and
 * the S3 error code, never credentials or signatures.
 */
final class S3Errors {
  private S3Errors() {}

  static BackendException map(String op, String bucket, String key, SdkException e) {
    String what = op + " s3://" + bucket + (key == null ? "" : "/" + key);
    if (e instanceof AwsServiceException se) {
      int status = se.statusCode();
      String code = se.awsErrorDetails() == null ? null : se.awsErrorDetails().errorCode();
      Kind kind = kindOf(status, code, se.isThrottlingException());
      return new BackendException(kind, status,
          what + ": " + status + (code == null ? "" : " " + code), e);
    }
    if (e instanceof SdkClientException && e.getMessage() != null
        && e.getMessage().startsWith("Unable to load credentials")) {
      // The SDK's message lists every provider of its chain over many lines; say what to give instead.
      return new BackendException(Kind.ACCESS_DENIED, 0, what + ": no AWS credentials found on this node (no "
          + "credentials file given, none in its environment or ~/.aws): register the bucket with "
          + "--credentials-file FILE (every node reads it), --profile, or --anonymous for a public bucket", e);
    }
    if (e instanceof SdkClientException) {
      // No answer after the SDK's retries: connection refused/reset or a timeout.
      return new BackendException(Kind.UNAVAILABLE, 0, what + ": " + describe(e), e);
    }
    return new BackendException(Kind.OTHER, 0, what + ": " + describe(e), e);
  }

  static Kind kindOf(int status, String code, boolean throttling) {
    if (status == 404 || "NoSuchKey".equals(code) || "NoSuchBucket".equals(code)) {
      return Kind.NOT_FOUND;
    }
    if (status == 401 || status == 403) {
      return Kind.ACCESS_DENIED;
    }
    if (status == 412) {
      return Kind.CHANGED;
    }
    if (status == 416) {
      return Kind.INVALID_RANGE;
    }
    if (status >= 500 || status == 429 || throttling) {
      return Kind.UNAVAILABLE;
    }
    return Kind.OTHER;
  }

  /** Failure while streaming a body: a stall past the read timeout is UNAVAILABLE, anything else TRUNCATED. */
  static BackendException bodyFailure(String what, long got, long expected, Throwable e) {
    boolean stalled = hasCause(e, SocketTimeoutException.class);
    return new BackendException(stalled ? Kind.UNAVAILABLE : Kind.TRUNCATED, 0,
        what + ": body " + (stalled ? "stalled" : "failed") + " after " + got + " of " + expected + " bytes: "
            + describe(e), e);
  }

  static boolean hasCause(Throwable e, Class<? extends Throwable> type) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (type.isInstance(t)) {
        return true;
      }
    }
    return false;
  }

  static String describe(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String m = root.getMessage();
    return root.getClass().getSimpleName() + (m == null ? "" : " (" + m + ")");
  }
}
