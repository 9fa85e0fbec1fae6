package io.granary.common.s3.auth;

import io.granary.common.http.RequestPath;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Builds the SigV4 canonical request of a received request, with S3's rules: the path is not normalized (no
 * dot-segment removal, no merging of '/'), and path, query names and values are compared in the form S3 clients
 * sign them, each re-encoded once from its decoded form ({@link AwsUriEncoder}).
 */
final class CanonicalRequest {

  private CanonicalRequest() {
  }

  /**
   * The canonical request:
   * {@code METHOD\nURI\nQUERY\nname:value\n...\n\nsigned;headers\nPAYLOAD_HASH}.
   *
   * @param query the decoded query parameters
   * @param excludeSignature whether to leave X-Amz-Signature out of the query (presigned URLs)
   */
  static String build(SignedRequest r, List<QueryParameter> query, boolean excludeSignature,
                      List<String> signedHeaders, String payloadHash) {
    return r.method() + "\n"
        + uri(r.rawPath()) + "\n"
        + query(query, excludeSignature) + "\n"
        + headers(r.headers(), signedHeaders) + "\n"
        + String.join(";", signedHeaders) + "\n"
        + payloadHash;
  }

  /**
   * Each '/'-separated segment of the raw path decoded and encoded again, so "%7E", "~" and "%7e" all sign as "~"
   * and an encoded slash ("%2F") inside a segment stays encoded.
   */
  static String uri(String rawPath) {
    if (rawPath.isEmpty()) {
      return "/";
    }
    String[] segments = rawPath.split("/", -1);
    StringBuilder sb = new StringBuilder(rawPath.length() + 16);
    for (int i = 0; i < segments.length; i++) {
      if (i > 0) {
        sb.append('/');
      }
      sb.append(AwsUriEncoder.encode(RequestPath.decode(segments[i]), false));
    }
    return sb.toString();
  }

  /** Parameters encoded, sorted by name then value, {@code name=value} joined by '&' (an empty value keeps '='). */
  static String query(List<QueryParameter> params, boolean excludeSignature) {
    List<String[]> encoded = new ArrayList<>(params.size());
    for (QueryParameter p : params) {
      if (excludeSignature && p.name().equals(PresignedParams.SIGNATURE)) {
        continue;
      }
      encoded.add(new String[] {AwsUriEncoder.encode(p.name(), false), AwsUriEncoder.encode(p.value(), false)});
    }
    // Encoded forms are ASCII, so String order is the byte order AWS sorts by.
    encoded.sort(Comparator.<String[], String>comparing(e -> e[0]).thenComparing(e -> e[1]));
    StringBuilder sb = new StringBuilder();
    for (String[] e : encoded) {
      if (sb.length() > 0) {
        sb.append('&');
      }
      sb.append(e[0]).append('=').append(e[1]);
    }
    return sb.toString();
  }

  /**
   * {@code name:value\n} for each signed header; several occurrences are joined by ','; each value is trimmed and
   * its inner runs of whitespace become one space.
   */
  static String headers(HttpHeaders headers, List<String> signedHeaders) {
    StringBuilder sb = new StringBuilder(256);
    for (String name : signedHeaders) {
      sb.append(name).append(':');
      List<String> values = headers.getAll(name);
      for (int i = 0; i < values.size(); i++) {
        if (i > 0) {
          sb.append(',');
        }
        appendTrimmed(sb, values.get(i));
      }
      sb.append('\n');
    }
    return sb.toString();
  }

  private static void appendTrimmed(StringBuilder sb, String value) {
    int start = 0;
    int end = value.length();
    while (start < end && isSpace(value.charAt(start))) {
      start++;
    }
    while (end > start && isSpace(value.charAt(end - 1))) {
      end--;
    }
    boolean inSpace = false;
    for (int i = start; i < end; i++) {
      char c = value.charAt(i);
      if (isSpace(c)) {
        if (!inSpace) {
          sb.append(' ');
          inSpace = true;
        }
      } else {
        sb.append(c);
        inSpace = false;
      }
    }
  }

  /** The whitespace the AWS SDKs collapse: space, tab, LF, VT, FF, CR. */
  private static boolean isSpace(char c) {
    return c == ' ' || (c >= '\t' && c <= '\r');
  }
}
