package io.granary.common.s3;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ETagsTest {

  @Test
  void quoted_addsQuotesOnce() {
    assertThat(ETags.quoted("abc")).isEqualTo("\"abc\"");
    assertThat(ETags.quoted("\"abc\"")).isEqualTo("\"abc\"");
    assertThat(ETags.quoted("abc-3")).isEqualTo("\"abc-3\"");
    assertThat(ETags.quoted(null)).isNull();
  }

  @Test
  void unquoted_stripsQuotesAndWhitespace() {
    assertThat(ETags.unquoted("\"abc\"")).isEqualTo("abc");
    assertThat(ETags.unquoted(" \n \"abc\" \n")).isEqualTo("abc");
    assertThat(ETags.unquoted("abc")).isEqualTo("abc");
    assertThat(ETags.unquoted("\"")).isEqualTo("\"");
    assertThat(ETags.unquoted(null)).isNull();
  }
}
