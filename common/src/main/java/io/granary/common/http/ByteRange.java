package io.granary.common.http;

import io.granary.common.error.BadRequestException;
import io.granary.common.error.RangeNotSatisfiableException;

/**
 * One resolved byte range of an object, from a {@code Range: bytes=...} header (RFC 9110 §14).
 *
 * <p>Exactly one range is served; several ranges are refused with 416 rather than answered with a multipart
 * body, as AIStore and S3 do.
 *
 * @param offset first byte
 * @param length number of bytes, at least 1
 * @param size size of the whole object
 */
public record ByteRange(long offset, long length, long size) {

  /** The {@code Content-Range} value: {@code bytes first-last/size}. */
  public String contentRange() {
    return "bytes " + offset + "-" + (offset + length - 1) + "/" + size;
  }

  /**
   * Resolves a Range header against an object of {@code size} bytes.
   *
   * @return the range, or {@code null} when {@code header} is null (serve the whole object)
   * @throws BadRequestException when the header is not a bytes range
   * @throws RangeNotSatisfiableException when it asks for several ranges or none of the object
   */
  public static ByteRange parse(String header, long size) {
    if (header == null) {
      return null;
    }
    String h = header.trim();
    if (!h.regionMatches(true, 0, "bytes=", 0, 6)) {
      throw new BadRequestException("InvalidRange", "Range header must be 'bytes=first-last', got '" + abbreviate(h) + "'");
    }
    String spec = h.substring(6).trim();
    if (spec.indexOf(',') >= 0) {
      throw new RangeNotSatisfiableException("multiple ranges are not supported; ask for one range", size);
    }
    int dash = spec.indexOf('-');
    if (dash < 0) {
      throw new BadRequestException("InvalidRange", "Range '" + abbreviate(h) + "' has no '-'");
    }
    String first = spec.substring(0, dash).trim();
    String last = spec.substring(dash + 1).trim();
    if (first.isEmpty()) { // suffix: last N bytes
      long n = number(last, h);
      if (n == 0 || size == 0) {
        throw new RangeNotSatisfiableException("range '" + abbreviate(h) + "' selects no bytes of a " + size + "-byte object", size);
      }
      long len = Math.min(n, size);
      return new ByteRange(size - len, len, size);
    }
    long start = number(first, h);
    long end = last.isEmpty() ? Long.MAX_VALUE : number(last, h);
    if (end < start) {
      throw new BadRequestException("InvalidRange", "Range '" + abbreviate(h) + "' ends before it starts");
    }
    if (start >= size) {
      throw new RangeNotSatisfiableException(
          "range starts at byte " + start + " but the object has " + size + " bytes", size);
    }
    end = Math.min(end, size - 1);
    return new ByteRange(start, end - start + 1, size);
  }

  private static long number(String s, String header) {
    if (s.isEmpty() || s.length() > 19) {
      throw new BadRequestException("InvalidRange", "Range '" + abbreviate(header) + "' is not a valid byte range");
    }
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) < '0' || s.charAt(i) > '9') {
        throw new BadRequestException("InvalidRange", "Range '" + abbreviate(header) + "' is not a valid byte range");
      }
    }
    try {
      return Long.parseLong(s);
    } catch (NumberFormatException e) { // 19 digits above Long.MAX_VALUE
      throw new BadRequestException("InvalidRange", "Range '" + abbreviate(header) + "' is not a valid byte range");
    }
  }

  private static String abbreviate(String s) {
    return s.length() <= 64 ? s : s.substring(0, 61) + "...";
  }
}
