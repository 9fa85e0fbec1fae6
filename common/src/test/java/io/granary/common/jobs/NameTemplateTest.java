package io.granary.common.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.stream.StreamSupport;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class NameTemplateTest {
  private static List<String> expand(String t) {
    return StreamSupport.stream(NameTemplate.parse(t).spliterator(), false).toList();
  }

  @Test
  void expand_zeroPadded_keepsWidth() {
    List<String> names = expand("shard-{0000..0999}.tar");
    assertThat(names).hasSize(1000);
    assertThat(names.get(0)).isEqualTo("shard-0000.tar");
    assertThat(names.get(7)).isEqualTo("shard-0007.tar");
    assertThat(names.get(999)).isEqualTo("shard-0999.tar");
  }

  @Test
  void expand_unpadded_noLeadingZeros() {
    assertThat(expand("a{8..11}")).containsExactly("a8", "a9", "a10", "a11");
  }

  @Test
  void expand_paddingFromEitherBound() {
    assertThat(expand("{1..010..4}")).containsExactly("001", "005", "009");
  }

  @Test
  void expand_step() {
    assertThat(expand("x{0..10..2}")).containsExactly("x0", "x2", "x4", "x6", "x8", "x10");
    assertThat(expand("x{0..9..5}")).containsExactly("x0", "x5");
  }

  @Test
  void expand_descendingAndNegative() {
    assertThat(expand("{3..1}")).containsExactly("3", "2", "1");
    assertThat(expand("{-05..1..3}")).containsExactly("-05", "-02", "001");
    assertThat(expand("{5..1..-2}")).containsExactly("5", "3", "1");
  }

  @Test
  void expand_severalRanges_multiplyLastFastest() {
    assertThat(expand("d{1..2}/s{00..01}.tar"))
        .containsExactly("d1/s00.tar", "d1/s01.tar", "d2/s00.tar", "d2/s01.tar");
    assertThat(NameTemplate.parse("{0..9}{0..9}{0..9}").size()).isEqualTo(1000);
  }

  @Test
  void expand_withoutBraces_isOneLiteralName() {
    NameTemplate t = NameTemplate.parse("data/train.tar");
    assertThat(t.isLiteral()).isTrue();
    assertThat(t.size()).isEqualTo(1);
    assertThat(expand("data/train.tar")).containsExactly("data/train.tar");
  }

  @Test
  void iterate_tenMillionNames_isLazy() {
    NameTemplate t = NameTemplate.parse("big/{0000000..9999999}.bin");
    assertThat(t.size()).isEqualTo(10_000_000L);
    Iterator<String> it = t.iterator();
    List<String> first = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      first.add(it.next());
    }
    assertThat(first).containsExactly("big/0000000.bin", "big/0000001.bin", "big/0000002.bin");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "a{1..3", "a}b", "a{1..{2..3}}", "a{x..3}", "a{1..2..0}", "a{1,2,3}", "a{}",
      "a{1..2..3..4}", "a{1.5..3}", "a{0..99999999999999999999}",
      "{0..999999}{0..999999}{0..999999}"})
  void parse_badTemplate_throws(String template) {
    assertThatThrownBy(() -> NameTemplate.parse(template)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageNotContaining("Exception");
  }

  @ParameterizedTest
  @CsvSource({"a{1..3, never closed", "a}b, no matching", "a{1..2..0}, must not be 0", "a{x..3}, not an integer",
      "a{1..2..3..4}, not a range"})
  void parse_badTemplate_saysWhy(String template, String why) {
    assertThatThrownBy(() -> NameTemplate.parse(template)).hasMessageContaining(why);
  }
}
