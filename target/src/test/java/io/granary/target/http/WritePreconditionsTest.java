package io.granary.target.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.granary.common.error.BadRequestException;
import io.granary.target.storage.WriteCondition;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class WritePreconditionsTest {
  private static HttpHeaders headers(String... nameValues) {
    HttpHeaders h = new DefaultHttpHeaders(false); // values as a client may send them, spaces included
    for (int i = 0; i < nameValues.length; i += 2) {
      h.add(nameValues[i], nameValues[i + 1]);
    }
    return h;
  }

  @Test
  void parse_noHeaders_isNone() {
    assertThat(WritePreconditions.parse(headers()).isNone()).isTrue();
  }

  @Test
  void parse_ifNoneMatchStar_isCreateOnly() {
    assertThat(WritePreconditions.parse(headers("If-None-Match", "*"))).isEqualTo(WriteCondition.ifNoneMatchStar());
    assertThat(WritePreconditions.parse(headers("If-None-Match", " * "))).isEqualTo(WriteCondition.ifNoneMatchStar());
  }

  @Test
  void parse_ifMatch_quotedOrBare_isTheUnquotedEtag() {
    assertThat(WritePreconditions.parse(headers("If-Match", "\"9b2cf535f27731c974343645a3985328\"")))
        .isEqualTo(WriteCondition.ifMatch("9b2cf535f27731c974343645a3985328"));
    assertThat(WritePreconditions.parse(headers("If-Match", "d41d8cd98f00b204e9800998ecf8427e-2")))
        .isEqualTo(WriteCondition.ifMatch("d41d8cd98f00b204e9800998ecf8427e-2"));
    assertThat(WritePreconditions.parse(headers("If-Match", "*"))).isEqualTo(WriteCondition.ifMatch("*"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "  ", "\"\"", "\"abc", "abc\"", "\"a\", \"b\"", "W/\"abc\"", "not an etag", "a\"b"})
  void parse_malformedIfMatch_isInvalidArgument(String value) {
    assertThatThrownBy(() -> WritePreconditions.parse(headers("If-Match", value)))
        .isInstanceOf(BadRequestException.class)
        .hasMessageContaining("If-Match");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "\"abc\"", "abc", "*, \"abc\""})
  void parse_ifNoneMatchOtherThanStar_isInvalidArgument(String value) {
    assertThatThrownBy(() -> WritePreconditions.parse(headers("If-None-Match", value)))
        .isInstanceOf(BadRequestException.class)
        .hasMessageContaining("If-None-Match");
  }

  @Test
  void parse_bothHeaders_isInvalidArgument() {
    assertThatThrownBy(() -> WritePreconditions.parse(headers("If-Match", "\"abc\"", "If-None-Match", "*")))
        .isInstanceOf(BadRequestException.class);
  }
}
