package io.granary.backend.s3;

import io.granary.backend.RemoteObject;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/** Builds {@link RemoteObject}s from S3 response fields. */
final class S3Objects {
  private static final String USER_META = "x-amz-meta-";
  private static final Pattern MD5_HEX = Pattern.compile("[0-9a-fA-F]{32}");

  private S3Objects() {}

  static RemoteObject of(String key, long size, String eTag, String versionId, Instant lastModified,
      String contentType, Map<String, String> meta) {
    String etag = unquote(eTag);
    return new RemoteObject(key, size, etag, versionId == null || "null".equals(versionId) ? null : versionId,
        lastModified == null ? 0 : lastModified.toEpochMilli(), md5Of(etag), null, contentType, meta);
  }

  /** An HTTP date ({@code Last-Modified}), or null when absent or malformed. */
  static Instant httpDate(String value) {
    if (value == null) {
      return null;
    }
    try {
      return DateTimeFormatter.RFC_1123_DATE_TIME.parse(value.trim(), Instant::from);
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  /** User metadata from {@code x-amz-meta-*} response headers, prefix removed (as the SDK reports it). */
  static Map<String, String> userMeta(Map<String, List<String>> headers) {
    Map<String, String> meta = new TreeMap<>();
    headers.forEach((name, values) -> {
      if (name.regionMatches(true, 0, USER_META, 0, USER_META.length()) && !values.isEmpty()) {
        meta.put(name.substring(USER_META.length()), values.get(0));
      }
    });
    return meta;
  }

  /** A single-part upload's ETag is the content MD5; a multipart one ({@code hex-N}) is not. */
  static String md5Of(String etag) {
    return etag != null && MD5_HEX.matcher(etag).matches() ? etag.toLowerCase(Locale.ROOT) : null;
  }

  static String unquote(String etag) {
    if (etag == null || etag.isEmpty()) {
      return null;
    }
    return etag.length() >= 2 && etag.startsWith("\"") && etag.endsWith("\"")
        ? etag.substring(1, etag.length() - 1) : etag;
  }

  /** Total size from {@code Content-Range: bytes a-b/total}, or -1 when absent or unknown ({@code *}). */
  static long totalFromContentRange(String contentRange) {
    if (contentRange == null) {
      return -1;
    }
    int slash = contentRange.lastIndexOf('/');
    if (slash < 0 || slash == contentRange.length() - 1 || contentRange.charAt(slash + 1) == '*') {
      return -1;
    }
    try {
      return Long.parseLong(contentRange.substring(slash + 1).trim());
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
