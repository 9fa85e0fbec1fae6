package io.granary.backend.gcs;

import com.google.cloud.BaseServiceException;
import io.granary.backend.BackendException;
import io.granary.backend.BackendException.Kind;
import java.net.SocketTimeoutException;

/** Turns google-cloud-storage failures into {@link BackendException}s; messages never carry credentials. */
final class GcsErrors {
  private GcsErrors() {}

  static BackendException map(String op, String bucket, String key, Throwable e) {
    String what = op + " gs://" + bucket + (key == null ? "" : "/" + key);
    BaseServiceException se = find(e, BaseServiceException.class);
    int status = se == null ? 0 : se.getCode();
    Kind kind = status > 0 ? kindOf(status) : Kind.UNAVAILABLE; // 0: no answer (connection error, timeout)
    return new BackendException(kind, Math.max(status, 0), what + ": " + describe(status, se, e), e);
  }

  static Kind kindOf(int status) {
    return switch (status) {
      case 404 -> Kind.NOT_FOUND;
      case 401, 403 -> Kind.ACCESS_DENIED;
      case 412 -> Kind.CHANGED;
      case 416 -> Kind.INVALID_RANGE;
      case 408, 429 -> Kind.UNAVAILABLE;
      default -> status >= 500 ? Kind.UNAVAILABLE : Kind.OTHER;
    };
  }

  /** A failure mid-body: a stall past the read timeout is UNAVAILABLE, else TRUNCATED; answered errors map by status. */
  static BackendException bodyFailure(String what, long got, long expected, Throwable e) {
    BaseServiceException se = find(e, BaseServiceException.class);
    int status = se == null ? 0 : se.getCode();
    if (status > 0 && status != 408 && status != 429 && status < 500) {
      // A precondition (412) or 404 answered when the (re)connect happened: the object changed or went away.
      return new BackendException(kindOf(status), status, what + ": " + describe(status, se, e), e);
    }
    boolean stalled = find(e, SocketTimeoutException.class) != null;
    return new BackendException(stalled ? Kind.UNAVAILABLE : Kind.TRUNCATED, Math.max(status, 0),
        what + ": body " + (stalled ? "stalled" : "failed") + " after " + got + " of " + expected + " bytes: "
            + describe(status, se, e), e);
  }

  static <T extends Throwable> T find(Throwable e, Class<T> type) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (type.isInstance(t)) {
        return type.cast(t);
      }
    }
    return null;
  }

  private static String describe(int status, BaseServiceException se, Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String reason = se == null ? null : se.getReason();
    String m = root.getMessage();
    if (m != null && m.length() > 200) {
      m = m.substring(0, 200) + "...";
    }
    return (status > 0 ? status + (reason == null ? "" : " " + reason) + ", " : "")
        + root.getClass().getSimpleName() + (m == null ? "" : " (" + m + ")");
  }
}
