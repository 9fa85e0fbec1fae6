package io.granary.proxy.auth;

import java.time.Instant;
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

  /** Parses {@code 20130524T000000Z}; null when {@code s} is not exactly that form. */
  static Instant parseBasic(String s) {
    if (s == null || s.length() != 16) {
      return null;
    }
    try {
      return BASIC.parse(s, Instant::from);
    } catch (DateTimeParseException e) {
      return null;
    }
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
