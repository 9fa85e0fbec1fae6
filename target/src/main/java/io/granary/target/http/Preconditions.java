package io.granary.target.http;

import io.granary.common.error.PreconditionFailedException;
import io.netty.handler.codec.DateFormatter;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.Date;

/**
 * Conditional GET/HEAD (RFC 9110 §13, as S3 applies it): {@code If-Match} and {@code If-Unmodified-Since} fail with
 * 412; {@code If-None-Match} and {@code If-Modified-Since} turn the answer into 304. When both members of a pair
 * are present, the ETag condition decides and the date is ignored (S3: If-Match true and If-Unmodified-Since false
 * is 200; If-None-Match false and If-Modified-Since true is 304). Dates compare at whole seconds, the precision of
 * HTTP dates; an unparseable date is ignored, as HTTP requires.
 */
public final class Preconditions {
  /** What the conditions say to do. */
  public enum Outcome {
    /** Serve the object. */
    PROCEED,
    /** Answer 304 Not Modified. */
    NOT_MODIFIED
  }

  private Preconditions() {}

  /**
   * @param etag the object's ETag without quotes
   * @param mtimeMillis the object's modification time
   * @throws PreconditionFailedException when If-Match or If-Unmodified-Since fails
   */
  public static Outcome evaluate(HttpHeaders request, String etag, long mtimeMillis) {
    long mtime = mtimeMillis / 1000;
    String ifMatch = request.get(HttpHeaderNames.IF_MATCH);
    if (ifMatch != null) {
      if (!matches(ifMatch, etag)) {
        throw new PreconditionFailedException("If-Match " + ifMatch + " does not match ETag \"" + etag + "\"");
      }
    } else {
      Long since = date(request.get(HttpHeaderNames.IF_UNMODIFIED_SINCE));
      if (since != null && mtime > since) {
        throw new PreconditionFailedException("the object was modified after If-Unmodified-Since");
      }
    }
    String ifNoneMatch = request.get(HttpHeaderNames.IF_NONE_MATCH);
    if (ifNoneMatch != null) {
      return matches(ifNoneMatch, etag) ? Outcome.NOT_MODIFIED : Outcome.PROCEED;
    }
    Long modifiedSince = date(request.get(HttpHeaderNames.IF_MODIFIED_SINCE));
    return modifiedSince != null && mtime <= modifiedSince ? Outcome.NOT_MODIFIED : Outcome.PROCEED;
  }

  /** Whether a list like {@code "a", W/"b"} or {@code *} contains {@code etag} (weak comparison). */
  static boolean matches(String list, String etag) {
    for (String part : list.split(",")) {
      String t = part.trim();
      if (t.equals("*")) {
        return true;
      }
      if (t.startsWith("W/")) {
        t = t.substring(2);
      }
      if (t.length() >= 2 && t.startsWith("\"") && t.endsWith("\"")) {
        t = t.substring(1, t.length() - 1);
      }
      if (t.equals(etag)) {
        return true;
      }
    }
    return false;
  }

  private static Long date(String value) {
    if (value == null) {
      return null;
    }
    Date d = DateFormatter.parseHttpDate(value);
    return d == null ? null : d.getTime() / 1000;
  }
}
