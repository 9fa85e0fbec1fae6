package io.granary.common.s3;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class S3DatesTest {
  private static final Instant RFC_EXAMPLE = Instant.parse("1994-11-06T08:49:37Z");

  @Test
  void httpDate_isImfFixdate_withTwoDigitDay() {
    assertThat(S3Dates.httpDate(Instant.parse("2026-11-01T04:05:06.789Z"))).isEqualTo("Sun, 01 Nov 2026 04:05:06 GMT");
    assertThat(S3Dates.httpDate(RFC_EXAMPLE)).isEqualTo("Sun, 06 Nov 1994 08:49:37 GMT");
  }

  @Test
  void iso8601_hasMillisecondsAndZ() {
    assertThat(S3Dates.iso8601(Instant.parse("2026-11-21T14:00:00Z"))).isEqualTo("2026-11-21T14:00:00.000Z");
    assertThat(S3Dates.iso8601(Instant.parse("2026-11-21T14:00:00.123456789Z"))).isEqualTo("2026-11-21T14:00:00.123Z");
  }

  @Test
  void parse_imfFixdate() {
    assertThat(S3Dates.parseHttpDate("Sun, 06 Nov 1994 08:49:37 GMT")).isEqualTo(RFC_EXAMPLE);
  }

  @Test
  void parse_rfc850_twoDigitYearInThePast() {
    assertThat(S3Dates.parseHttpDate("Sunday, 06-Nov-94 08:49:37 GMT")).isEqualTo(RFC_EXAMPLE);
  }

  @Test
  void parse_asctime_withSpacePaddedDay() {
    assertThat(S3Dates.parseHttpDate("Sun Nov  6 08:49:37 1994")).isEqualTo(RFC_EXAMPLE);
    assertThat(S3Dates.parseHttpDate("Wed Nov 16 08:49:37 1994")).isEqualTo(Instant.parse("1994-11-16T08:49:37Z"));
  }

  @Test
  void parse_roundTripsHttpDate() {
    Instant t = Instant.parse("2026-02-03T04:05:06Z");
    assertThat(S3Dates.parseHttpDate(S3Dates.httpDate(t))).isEqualTo(t);
  }

  @Test
  void parse_toleratesWrongWeekdayCaseAndOneDigitDay() {
    assertThat(S3Dates.parseHttpDate("Mon, 06 Nov 1994 08:49:37 GMT")).isEqualTo(RFC_EXAMPLE);
    assertThat(S3Dates.parseHttpDate("sun, 6 nov 1994 08:49:37 gmt")).isEqualTo(RFC_EXAMPLE);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "yesterday", "2026-11-21T14:00:00Z", "Sun, 06 Nov 1994 08:49:37 PST",
      "Sun, 06 Nov 1994 25:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT", "Sunday, 06-Nov-1994 08:49:37",
      "Sun Nov  6 08:49:37", "Sun, 06 Nov 1994"})
  void parse_invalid_isNull(String v) {
    assertThat(S3Dates.parseHttpDate(v)).isNull();
  }

  @Test
  void parse_null_isNull() {
    assertThat(S3Dates.parseHttpDate(null)).isNull();
  }
}
