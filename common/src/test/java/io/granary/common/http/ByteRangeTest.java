package io.granary.common.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.granary.common.error.BadRequestException;
import io.granary.common.error.RangeNotSatisfiableException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ByteRangeTest {

  @Test
  void parse_nullHeader_isWholeObject() {
    assertThat(ByteRange.parse(null, 100)).isNull();
  }

  @Test
  void parse_firstAndLast_selectsInclusiveRange() {
    ByteRange r = ByteRange.parse("bytes=0-9", 100);
    assertThat(r).isEqualTo(new ByteRange(0, 10, 100));
    assertThat(r.contentRange()).isEqualTo("bytes 0-9/100");
  }

  @Test
  void parse_openEnded_runsToEndOfObject() {
    ByteRange r = ByteRange.parse("bytes=10-", 100);
    assertThat(r).isEqualTo(new ByteRange(10, 90, 100));
    assertThat(r.contentRange()).isEqualTo("bytes 10-99/100");
  }

  @Test
  void parse_suffix_selectsLastBytes() {
    ByteRange r = ByteRange.parse("bytes=-5", 100);
    assertThat(r).isEqualTo(new ByteRange(95, 5, 100));
    assertThat(r.contentRange()).isEqualTo("bytes 95-99/100");
  }

  @Test
  void parse_suffixLongerThanObject_selectsWholeObject() {
    assertThat(ByteRange.parse("bytes=-500", 100)).isEqualTo(new ByteRange(0, 100, 100));
  }

  @Test
  void parse_endBeyondSize_isClamped() {
    ByteRange r = ByteRange.parse("bytes=90-1000", 100);
    assertThat(r).isEqualTo(new ByteRange(90, 10, 100));
    assertThat(r.contentRange()).isEqualTo("bytes 90-99/100");
  }

  @Test
  void parse_singleByte_hasLengthOne() {
    ByteRange r = ByteRange.parse("bytes=99-99", 100);
    assertThat(r).isEqualTo(new ByteRange(99, 1, 100));
    assertThat(r.contentRange()).isEqualTo("bytes 99-99/100");
  }

  @Test
  void parse_caseAndWhitespace_areTolerated() {
    assertThat(ByteRange.parse("  Bytes= 2 - 3 ", 10)).isEqualTo(new ByteRange(2, 2, 10));
  }

  @Test
  void parse_startAtSize_is416WithObjectSize() {
    assertUnsatisfiable("bytes=100-", 100);
    assertUnsatisfiable("bytes=100-200", 100);
  }

  @Test
  void parse_startFarBeyondLargeObject_is416() {
    assertUnsatisfiable("bytes=5000000-", 3_000_000);
  }

  @Test
  void parse_multipleRanges_is416() {
    assertUnsatisfiable("bytes=0-1,4-5", 100);
  }

  @Test
  void parse_zeroSuffix_is416() {
    assertUnsatisfiable("bytes=-0", 100);
  }

  @ParameterizedTest
  @ValueSource(strings = {"bytes=0-", "bytes=0-0", "bytes=-1", "bytes=0-100"})
  void parse_anyRangeOfEmptyObject_is416(String header) {
    assertUnsatisfiable(header, 0);
  }

  @ParameterizedTest
  @ValueSource(strings = {"bytes=abc", "items=0-1", "bytes=5-2", "bytes=5", "bytes=", "bytes=a-1", "bytes=1-b",
      "bytes=-", "bytes=+1-2", "bytes=99999999999999999999-", "0-1", "bytes=9999999999999999999-",
      "bytes=0-9999999999999999999", "bytes=-9999999999999999999"})
  void parse_malformed_isInvalidRange400(String header) {
    assertThatThrownBy(() -> ByteRange.parse(header, 100))
        .isInstanceOfSatisfying(BadRequestException.class, e -> {
          assertThat(e.code()).isEqualTo("InvalidRange");
          assertThat(e.status().code()).isEqualTo(400);
        });
  }

  private static void assertUnsatisfiable(String header, long size) {
    assertThatThrownBy(() -> ByteRange.parse(header, size))
        .isInstanceOfSatisfying(RangeNotSatisfiableException.class, e -> {
          assertThat(e.status().code()).isEqualTo(416);
          assertThat(e.code()).isEqualTo("InvalidRange");
          assertThat(e.objectSize()).isEqualTo(size);
        });
  }
}
