package io.granary.common.s3.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CredentialStoreTest {
  private static final String SECRET = "s3cr3t/with+plus=and:colon";

  @TempDir
  Path dir;

  private Path file(String content) throws IOException {
    Path f = dir.resolve("credentials");
    Files.writeString(f, content, StandardCharsets.UTF_8);
    return f;
  }

  @Test
  void load_commentsBlankLinesAndColonInSecret_areParsed() throws IOException {
    CredentialStore store = load("# team keys\n\n  AKIAFIRST:" + SECRET + "  \n# AKIAOLD:gone\nsecond.key/x:two\n");

    assertThat(store.size()).isEqualTo(2);
    assertThat(store.find("AKIAFIRST")).contains(new Credentials("AKIAFIRST", SECRET));
    assertThat(store.find("second.key/x").map(Credentials::secretKey)).contains("two");
    assertThat(store.find("AKIAOLD")).isEmpty();
  }

  @Test
  void load_emptyFile_isEmptyStore() throws IOException {
    assertThat(load("").size()).isZero();
  }

  @Test
  void load_lineWithoutColon_namesLineAndHidesContent() {
    assertThatThrownBy(() -> load("AKIAFIRST:one\n\nnocolon" + SECRET.replace(":", "") + "\n"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("line 3")
        .hasMessageContaining("ACCESS_KEY:SECRET_KEY")
        .hasMessageNotContaining("s3cr3t");
  }

  @Test
  void load_emptySecret_namesLine() {
    assertThatThrownBy(() -> load("# c\nAKIAFIRST:\n"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("line 2")
        .hasMessageContaining("empty");
  }

  @Test
  void load_badAccessKey_namesLineWithoutEchoingIt() {
    // A line with the secret first: neither part may show up in the message.
    assertThatThrownBy(() -> load("s3cr3t with space:AKIAFIRST\n"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("line 1")
        .hasMessageContaining("3..128")
        .hasMessageNotContaining("s3cr3t");
  }

  @Test
  void load_duplicateAccessKey_namesBothLinesNotSecrets() {
    assertThatThrownBy(() -> load("AKIAFIRST:" + SECRET + "\nAKIAFIRST:other-secret\n"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("line 2")
        .hasMessageContaining("line 1")
        .hasMessageNotContaining("s3cr3t")
        .hasMessageNotContaining("other-secret");
  }

  @Test
  void of_duplicateAccessKey_isRefused() {
    assertThatThrownBy(() -> CredentialStore.of(List.of(new Credentials("AKIA1", "a"), new Credentials("AKIA1", "b"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("AKIA1");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "ab", "has space", "colon:key", "ünicode", "tab\tkey"})
  void credentials_badAccessKey_isRefused(String accessKey) {
    assertThatThrownBy(() -> new Credentials(accessKey, "secret")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void credentials_longestAndAllAllowedCharacters_areAccepted() {
    assertThat(new Credentials("a".repeat(128), "x").accessKey()).hasSize(128);
    assertThat(new Credentials("Az09_./+=-", "x").accessKey()).isEqualTo("Az09_./+=-");
    assertThatThrownBy(() -> new Credentials("a".repeat(129), "x")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void credentials_toString_hidesSecret() {
    assertThat(new Credentials("AKIAFIRST", SECRET).toString()).contains("AKIAFIRST").doesNotContain("s3cr3t");
  }

  @Test
  void generate_isAwsShapedAndRandom() {
    Set<String> keys = new HashSet<>();
    for (int i = 0; i < 50; i++) {
      Credentials c = Credentials.generate();
      assertThat(c.accessKey()).matches("GR[A-Z0-9]{18}");
      assertThat(c.secretKey()).matches("[A-Za-z0-9+/]{40}");
      keys.add(c.accessKey());
    }
    assertThat(keys).hasSize(50);
  }

  private CredentialStore load(String content) throws IOException {
    return CredentialStore.load(file(content));
  }
}
