package io.granary.common.s3;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.Year;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Locale;

/**
 * The date forms S3 uses: RFC 1123 (IMF-fixdate) in headers such as {@code Last-Modified}, ISO 8601 with
 * milliseconds in XML ({@code 2026-11-21T14:00:00.000Z}), and the three HTTP date forms a client may send in
 * {@code If-Modified-Since} and friends (RFC 9110 §5.6.7).
 *
 * <p>Header dates have whole seconds, so a conditional request compares against the object's time truncated to
 * the second; XML dates keep milliseconds, as S3's do.
 */
public final class S3Dates {
  private static final DateTimeFormatter IMF_FIXDATE =
      DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US).withZone(ZoneOffset.UTC);
  private static final DateTimeFormatter ISO_MILLIS =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'", Locale.US).withZone(ZoneOffset.UTC);

  // Parsers read what follows the weekday: HTTP says a wrong weekday does not make a date invalid, and some
  // clients get it wrong, so it is skipped rather than checked.
  private static final DateTimeFormatter IMF_AFTER_WEEKDAY = parser("d MMM yyyy HH:mm:ss 'GMT'");
  private static final DateTimeFormatter RFC850_AFTER_WEEKDAY = parser("d-MMM-yy HH:mm:ss 'GMT'");
  private static final DateTimeFormatter ASCTIME_AFTER_WEEKDAY = parser("MMM d HH:mm:ss yyyy");

  private S3Dates() {}

  /** {@code Sat, 21 Nov 2026 14:00:00 GMT}: for {@code Last-Modified}, {@code Date}, {@code Expires}. */
  public static String httpDate(Instant t) {
    return IMF_FIXDATE.format(t);
  }

  /** {@code 2026-11-21T14:00:00.000Z}: for LastModified, CreationDate, Initiated in XML. */
  public static String iso8601(Instant t) {
    return ISO_MILLIS.format(t.truncatedTo(ChronoUnit.MILLIS));
  }

  /**
   * Parses an HTTP date in any of its three forms: {@code Sun, 06 Nov 1994 08:49:37 GMT} (IMF-fixdate),
   * {@code Sunday, 06-Nov-94 08:49:37 GMT} (RFC 850) or {@code Sun Nov  6 08:49:37 1994} (asctime).
   *
   * @return the instant, or {@code null} when {@code value} is none of them: HTTP says an invalid date in a
   *     conditional header is ignored, not an error
   */
  public static Instant parseHttpDate(String value) {
    if (value == null) {
      return null;
    }
    String v = value.strip();
    int comma = v.indexOf(',');
    try {
      if (comma > 0) {
        String rest = v.substring(comma + 1).strip();
        if (rest.indexOf('-') > 0) {
          return rfc850(rest);
        }
        return LocalDateTime.parse(rest, IMF_AFTER_WEEKDAY).toInstant(ZoneOffset.UTC);
      }
      int space = v.indexOf(' ');
      if (space < 0) {
        return null;
      }
      String rest = v.substring(space + 1).strip().replaceAll(" +", " ");
      return LocalDateTime.parse(rest, ASCTIME_AFTER_WEEKDAY).toInstant(ZoneOffset.UTC);
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  private static Instant rfc850(String rest) {
    // yy is read into 2000..2099; RFC 9110: a year more than 50 years ahead is the same two digits a century ago.
    LocalDateTime t = LocalDateTime.parse(rest, RFC850_AFTER_WEEKDAY);
    int year = t.getYear();
    int thisYear = Year.now(ZoneOffset.UTC).getValue();
    int candidate = thisYear / 100 * 100 + year % 100;
    if (candidate > thisYear + 50) {
      candidate -= 100;
    }
    return t.withYear(candidate).toInstant(ZoneOffset.UTC);
  }

  private static DateTimeFormatter parser(String pattern) {
    return new DateTimeFormatterBuilder().parseCaseInsensitive().appendPattern(pattern).toFormatter(Locale.US);
  }
}
