package io.granary.common.s3.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class AmzDateTest {

  @Test
  void parseBasic_readsTheIso8601BasicForm_inUtc() {
    assertThat(AmzDate.parseBasic("20130524T000000Z")).isEqualTo(Instant.parse("2013-05-24T00:00:00Z"));
    assertThat(AmzDate.parseBasic("20241231T235959Z")).isEqualTo(Instant.parse("2024-12-31T23:59:59Z"));
    assertThat(AmzDate.parseBasic("20240229T120000Z")).isEqualTo(Instant.parse("2024-02-29T12:00:00Z"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "20130524T000000", "20130524T000000z", "20130524 000000Z", "2013-524T000000Z",
      "20131324T000000Z", "20130230T000000Z", "20230229T000000Z", "20130524T240000Z", "20130524T006000Z",
      "20130524T000060Z", "2013052４T000000Z", "+0130524T000000Z", "20130524T000000Z0"})
  void parseBasic_isNull_forAnythingElse(String s) {
    assertThat(AmzDate.parseBasic(s)).isNull();
  }

  @Test
  void formatBasic_ofParseBasic_isIdentity() {
    assertThat(AmzDate.formatBasic(AmzDate.parseBasic("20261121T154504Z"))).isEqualTo("20261121T154504Z");
  }
}
