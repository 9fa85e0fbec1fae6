package io.granary.common.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

class ByteSizeTest {

  @ParameterizedTest(name = "{0} = {1}")
  @CsvSource({
      "4096, 4096",
      "0, 0",
      "150KiB, 153600",
      "1MiB, 1048576",
      "10MB, 10000000",
      "2G, 2147483648",
      "1.5GiB, 1610612736",
      "1TiB, 1099511627776",
      "3TB, 3000000000000",
      "1kb, 1000",
      "512B, 512",
      "' 64 KiB ', 65536",
      "8k, 8192",
  })
  void parse_numberWithUnit_isBytes(String text, long bytes) {
    assertThat(ByteSize.parse(text)).isEqualTo(bytes);
  }

  @ParameterizedTest
  @ValueSource(strings = {"-1", "", "abc", "1.", ".5M", "1 2", "KiB"})
  void parse_notANumberWithUnit_namesAcceptedForms(String text) {
    assertThatThrownBy(() -> ByteSize.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'" + text + "'")
        .hasMessageContaining("4096, 150KiB, 1MiB, 10MB");
  }

  @ParameterizedTest
  @NullSource
  void parse_null_namesAcceptedForms(String text) {
    assertThatThrownBy(() -> ByteSize.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("4096, 150KiB, 1MiB, 10MB");
  }

  @ParameterizedTest
  @ValueSource(strings = {"10XB", "5 bytes", "1PiB"})
  void parse_unknownUnit_namesAcceptedUnits(String text) {
    assertThatThrownBy(() -> ByteSize.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown unit")
        .hasMessageContaining("KiB, MiB, GiB, TiB")
        .hasMessageContaining("KB, MB, GB or TB");
  }

  @ParameterizedTest
  @ValueSource(strings = {"9999999999TiB", "99999999999999999999"})
  void parse_tooLarge_isRefused(String text) {
    assertThatThrownBy(() -> ByteSize.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("too large");
  }
}
