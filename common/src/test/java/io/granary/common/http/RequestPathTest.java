package io.granary.common.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.granary.common.error.BadRequestException;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RequestPathTest {

  @Test
  void decode_withoutEscapes_returnsInputUnchanged() {
    assertThat(RequestPath.decode("a/b-c_d.e~f")).isEqualTo("a/b-c_d.e~f");
  }

  @Test
  void decode_multibyteUtf8Escapes_decodesCharacters() {
    assertThat(RequestPath.decode("caf%C3%A9")).isEqualTo("café");
    assertThat(RequestPath.decode("%E2%82%AC")).isEqualTo("€");
    assertThat(RequestPath.decode("%F0%9F%98%80.txt")).isEqualTo("😀.txt");
    assertThat(RequestPath.decode("%c3%bc")).as("lowercase hex digits").isEqualTo("ü");
  }

  @Test
  void decode_plus_staysPlus() {
    assertThat(RequestPath.decode("a+b")).isEqualTo("a+b");
    assertThat(RequestPath.decode("a+b%20c")).isEqualTo("a+b c");
  }

  @Test
  void decode_encodedSlash_becomesSlash() {
    assertThat(RequestPath.decode("dir%2Ffile")).isEqualTo("dir/file");
    assertThat(RequestPath.decode("dir%2ffile")).isEqualTo("dir/file");
  }

  @Test
  void decode_doubleEncoded_decodesOnlyOnce() {
    assertThat(RequestPath.decode("%252e")).isEqualTo("%2e");
  }

  @Test
  void decode_escapeAtVeryEnd_decodes() {
    assertThat(RequestPath.decode("x%41")).isEqualTo("xA");
  }

  @ParameterizedTest
  @ValueSource(strings = {"%zz", "a%g1", "a%1g", "%%41"})
  void decode_malformedEscape_isInvalidUri(String s) {
    assertInvalidUri(s);
  }

  @ParameterizedTest
  @ValueSource(strings = {"%4", "abc%", "abc%4"})
  void decode_truncatedEscape_isInvalidUri(String s) {
    assertInvalidUri(s);
  }

  @ParameterizedTest
  @ValueSource(strings = {"%ff", "%C3", "%C3%28", "%80", "%ED%A0%80", "%C0%AF"})
  void decode_invalidUtf8_isInvalidUri(String s) {
    assertInvalidUri(s);
  }

  @Test
  void decode_rawUtf8BytesAsIso88591Chars_decodeAsUtf8() {
    // Netty decodes the request line as ISO-8859-1: raw "ü" (C3 BC) arrives as the two chars U+00C3 U+00BC.
    assertThat(RequestPath.decode("\u00c3\u00bc%20x")).isEqualTo("ü x");
    String wire = new String("dir/ü😀".getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
    assertThat(RequestPath.decode(wire + "%2F")).isEqualTo("dir/ü😀/");
  }

  @Test
  void decode_rawUtf8WithoutAnyEscape_decodesAsUtf8() {
    assertThat(RequestPath.decode("\u00c3\u00bc")).isEqualTo("ü");
    String wire = new String("bkt/dir/ü😀.txt".getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
    assertThat(RequestPath.of("/v1/objects/" + wire).decodedAfter("/v1/objects/")).isEqualTo("bkt/dir/ü😀.txt");
  }

  @Test
  void decode_rawInvalidUtf8AsIso88591Char_isInvalidUri() {
    assertInvalidUri("\u00ff%20");
    assertInvalidUri("\u00ff");
    assertInvalidUri("a\u00c3");
  }

  @Test
  void of_splitsPathAndQuery() {
    RequestPath p = RequestPath.of("/v1/objects/b/o%20x?prefix=a&limit=2");
    assertThat(p.raw()).isEqualTo("/v1/objects/b/o%20x");
    assertThat(p.rawQuery()).isEqualTo("prefix=a&limit=2");
    assertThat(p.startsWith("/v1/objects/")).isTrue();
    assertThat(p.decodedAfter("/v1/objects/")).isEqualTo("b/o x");
  }

  @Test
  void of_withoutQuery_hasEmptyQuery() {
    RequestPath p = RequestPath.of("/v1/health");
    assertThat(p.raw()).isEqualTo("/v1/health");
    assertThat(p.rawQuery()).isEmpty();
  }

  @Test
  void of_secondQuestionMark_belongsToQuery() {
    RequestPath p = RequestPath.of("/a?x=1?y");
    assertThat(p.raw()).isEqualTo("/a");
    assertThat(p.rawQuery()).isEqualTo("x=1?y");
  }

  @Test
  void of_encodedQuestionMark_staysInPath() {
    RequestPath p = RequestPath.of("/a%3Fb");
    assertThat(p.rawQuery()).isEmpty();
    assertThat(p.decodedAfter("/")).isEqualTo("a?b");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "a/b", "http://host/a", "*"})
  void of_notOriginForm_isInvalidUri(String uri) {
    assertThatThrownBy(() -> RequestPath.of(uri))
        .isInstanceOfSatisfying(BadRequestException.class, e -> assertThat(e.code()).isEqualTo("InvalidURI"));
  }

  @Test
  void of_fragment_isInvalidUri() {
    assertThatThrownBy(() -> RequestPath.of("/a#frag"))
        .isInstanceOfSatisfying(BadRequestException.class, e -> assertThat(e.code()).isEqualTo("InvalidURI"));
  }

  @Test
  void encodePath_keepsUnreservedAndSlash_escapesTheRest() {
    assertThat(RequestPath.encodePath("a/B-9._~")).isEqualTo("a/B-9._~");
    assertThat(RequestPath.encodePath("a b+c%?#")).isEqualTo("a%20b%2Bc%25%3F%23");
    assertThat(RequestPath.encodePath("ü")).isEqualTo("%C3%BC");
  }

  @Test
  void encodePath_randomUnicodeNames_roundTripThroughDecode() {
    Random rnd = new Random(42);
    for (int n = 0; n < 2000; n++) {
      String name = randomName(rnd, 1 + rnd.nextInt(40));
      String encoded = RequestPath.encodePath(name);
      assertThat(encoded).matches("[A-Za-z0-9\\-._~/%]*");
      assertThat(RequestPath.decode(encoded)).isEqualTo(name);
    }
  }

  private static String randomName(Random rnd, int codePoints) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < codePoints; i++) {
      int cp;
      switch (rnd.nextInt(5)) {
        case 0 -> cp = 0x20 + rnd.nextInt(0x5f); // printable ASCII, including '%', '+', '?', '#'
        case 1 -> cp = 0x80 + rnd.nextInt(0x780); // two-byte UTF-8
        case 2 -> cp = 0x800 + rnd.nextInt(0xD000 - 0x800); // three-byte, below surrogates
        case 3 -> cp = 0xE000 + rnd.nextInt(0x2000); // three-byte, above surrogates (incl. U+FFFD)
        default -> cp = 0x10000 + rnd.nextInt(0x10FFFF - 0x10000); // four-byte
      }
      sb.appendCodePoint(cp);
    }
    return sb.toString();
  }

  private static void assertInvalidUri(String s) {
    assertThatThrownBy(() -> RequestPath.decode(s))
        .isInstanceOfSatisfying(BadRequestException.class, e -> {
          assertThat(e.code()).isEqualTo(BadRequestException.INVALID_URI);
          assertThat(e.status().code()).isEqualTo(400);
        });
  }
}
