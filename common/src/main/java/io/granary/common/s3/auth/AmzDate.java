package io.granary.common.s3.auth;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.format.ResolverStyle;

/** The two request-time formats SigV4 accepts: ISO 8601 basic ({@code 20130524T000000Z}) and the HTTP Date. */
final class AmzDate {
  private static final DateTimeFormatter BASIC = DateTimeFormatter.ofPattern("uuuuMMdd'T'HHmmss'Z'")
      .withZone(ZoneOffset.UTC)
      .withResolverStyle(ResolverStyle.STRICT);

  private AmzDate() {
  }

  /**
   * Parses {@code 20130524T000000Z}; null when {@code s} is not exactly that form or not a real time. By hand: it
   * runs for every signed request, and a DateTimeFormatter costs microseconds.
   */
  static Instant parseBasic(String s) {
    if (s == null || s.length() != 16 || s.charAt(8) != 'T' || s.charAt(15) != 'Z') {
      return null;
    }
    int year = digits(s, 0, 4);
    int month = digits(s, 4, 6);
    int day = digits(s, 6, 8);
    int hour = digits(s, 9, 11);
    int minute = digits(s, 11, 13);
    int second = digits(s, 13, 15);
    if ((year | month | day | hour | minute | second) < 0) {
      return null;
    }
    try {
      return LocalDateTime.of(year, month, day, hour, minute, second).toInstant(ZoneOffset.UTC);
    } catch (DateTimeException e) { // month 13, February 30, hour 24...
      return null;
    }
  }

  /** The decimal number in {@code s[from, to)}, or -1 when a character there is not an ASCII digit. */
  private static int digits(String s, int from, int to) {
    int v = 0;
    for (int i = from; i < to; i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      v = v * 10 + (c - '0');
    }
    return v;
  }

  /** Parses an RFC 1123 HTTP date ({@code Fri, 24 May 2013 00:00:00 GMT}); null when it is not one. */
  static Instant parseHttpDate(String s) {
    if (s == null) {
      return null;
    }
    try {
      return DateTimeFormatter.RFC_1123_DATE_TIME.parse(s.strip(), Instant::from);
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  static String formatBasic(Instant t) {
    return BASIC.format(t);
  }
}
