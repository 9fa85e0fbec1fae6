package io.granary.common.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class S3UrlEncodingTest {

  @Test
  void unreservedAndSlash_stayReadable() {
    assertThat(S3UrlEncoding.encode("photos/2026/Jan-01_a.b~c")).isEqualTo("photos/2026/Jan-01_a.b~c");
  }

  @Test
  void everythingElse_isPercentEncodedUpperCase() {
    assertThat(S3UrlEncoding.encode("a b+c%d&e=f?g#h*i'j\"k<l>m")).isEqualTo(
        "a%20b%2Bc%25d%26e%3Df%3Fg%23h%2Ai%27j%22k%3Cl%3Em");
    assertThat(S3UrlEncoding.encode("\u0001\r\n\t\u007f")).isEqualTo("%01%0D%0A%09%7F");
    assertThat(S3UrlEncoding.encode("caf\u00e9/\u65e5/\ud83d\ude00")).isEqualTo("caf%C3%A9/%E6%97%A5/%F0%9F%98%80");
  }

  @Test
  void null_staysNull() {
    assertThat(S3UrlEncoding.encode(null)).isNull();
  }

  @ParameterizedTest
  @ValueSource(strings = {"plain", "a b", "a+b", "100%", "x&y<z>", "\u0001\u0002\u001f", "line\r\nbreak",
      "caf\u00e9 \u65e5\u672c \ud83d\ude00", "dir/sub dir/file+1.txt", "~tilde*star", " ", "+"})
  void roundTrip_withPlusAwareAndPlainDecoders(String key) {
    String encoded = S3UrlEncoding.encode(key);

    // botocore (unquote_plus), aws-sdk-java-v2 (URLDecoder) and Go (QueryUnescape) treat '+' as a space...
    assertThat(URLDecoder.decode(encoded, StandardCharsets.UTF_8)).isEqualTo(key);
    // ...plain percent-decoders do not; the encoding never depends on either.
    assertThat(URI.create("x:" + encoded).getSchemeSpecificPart()).isEqualTo(key);
  }

  @Test
  void requested_onlyForUrl() {
    assertThat(S3UrlEncoding.requested(null)).isFalse();
    assertThat(S3UrlEncoding.requested("")).isFalse();
    assertThat(S3UrlEncoding.requested("url")).isTrue();
    assertThat(S3UrlEncoding.requested("URL")).isTrue();
    assertThatThrownBy(() -> S3UrlEncoding.requested("base64"))
        .isInstanceOfSatisfying(S3ApiException.class, e -> {
          assertThat(e.code()).isEqualTo("InvalidArgument");
          assertThat(e.details()).containsEntry("ArgumentName", "encoding-type").containsEntry("ArgumentValue", "base64");
        });
  }
}
