package io.granary.target.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.granary.common.s3.S3ApiException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class CopyRangeTest {

  @Test
  void parse_absent_isTheWholeSource() {
    assertThat(CopyRange.parse(null)).isNull();
  }

  @Test
  void parse_firstLast_isInclusive() {
    CopyRange r = CopyRange.parse("bytes=5-9");
    assertThat(r).isEqualTo(new CopyRange(5, 9));
    assertThat(r.length()).isEqualTo(5);
    assertThat(CopyRange.parse(" bytes=0-0 ").length()).isEqualTo(1);
  }

  @ParameterizedTest
  @ValueSource(strings = {"bytes=hello-world", "bytes=0-bar", "bytes=hello-", "bytes=0-2,3-5", "bytes=-5", "bytes=5-",
      "bytes=9-3", "0-5", "", "bytes=99999999999999999999-1"})
  void parse_malformed_isInvalidArgument400(String header) {
    assertThatThrownBy(() -> CopyRange.parse(header)).isInstanceOfSatisfying(S3ApiException.class, e -> {
      assertThat(e.code()).isEqualTo("InvalidArgument");
      assertThat(e.status().code()).isEqualTo(400);
    });
  }

  @Test
  void requireWithin_pastTheEnd_isInvalidRange416_notClipped() {
    new CopyRange(0, 999).requireWithin(1000);
    for (CopyRange r : new CopyRange[] {new CopyRange(0, 1000), new CopyRange(1000, 1000), new CopyRange(0, 0)}) {
      long size = r.first() == 0 && r.last() == 0 ? 0 : 1000;
      assertThatThrownBy(() -> r.requireWithin(size)).isInstanceOfSatisfying(S3ApiException.class, e -> {
        assertThat(e.code()).isEqualTo("InvalidRange");
        assertThat(e.status().code()).isEqualTo(416);
      });
    }
  }

  @Test
  void requireCopyable_over5GiB_isInvalidRequest() {
    CopyRange.requireCopyable(5L << 30);
    assertThatThrownBy(() -> CopyRange.requireCopyable((5L << 30) + 1))
        .isInstanceOfSatisfying(S3ApiException.class, e -> assertThat(e.code()).isEqualTo("InvalidRequest"));
  }
}
