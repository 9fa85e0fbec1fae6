package io.granary.common.s3;

/**
 * ETag quoting. S3 sends ETags as quoted strings ({@code "9b2cf535f27731c974343645a3985328"}) in headers and XML
 * alike, while clients echo them back with or without the quotes.
 */
public final class ETags {
  private ETags() {}

  /** {@code etag} in double quotes, unless it already is; {@code null} stays {@code null}. */
  public static String quoted(String etag) {
    if (etag == null) {
      return null;
    }
    return isQuoted(etag) ? etag : "\"" + etag + "\"";
  }

  /** {@code etag} without surrounding whitespace and double quotes; {@code null} stays {@code null}. */
  public static String unquoted(String etag) {
    if (etag == null) {
      return null;
    }
    String t = etag.strip();
    return isQuoted(t) ? t.substring(1, t.length() - 1) : t;
  }

  private static boolean isQuoted(String s) {
    return s.length() >= 2 && s.charAt(0) == '"' && s.charAt(s.length() - 1) == '"';
  }
}
