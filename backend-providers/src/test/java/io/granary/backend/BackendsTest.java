package io.granary.backend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.granary.clustermap.bucket.Provider;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class BackendsTest {
  @TempDir
  Path tmp;

  @ParameterizedTest
  @EnumSource(value = Provider.class, names = {"AWS", "GCP"})
  void open_missingCredentialsFile_namesThePath(Provider provider) {
    Path missing = tmp.resolve("nope.json");
    assertThatThrownBy(() -> Backends.open(BackendConfig.of(provider, URI.create("http://127.0.0.1:1"), null, true,
        missing, false)))
        .isInstanceOfSatisfying(BackendException.class, e -> {
          assertThat(e.kind()).isEqualTo(BackendException.Kind.OTHER);
          assertThat(e.remoteStatus()).isZero();
          assertThat(e.getMessage()).contains(missing.toString());
        });
  }

  @ParameterizedTest
  @EnumSource(value = Provider.class, names = {"AWS", "GCP"})
  void open_garbledCredentialsFile_neverEchoesItsContents(Provider provider) throws Exception {
    Path garbled = Files.writeString(tmp.resolve("creds"), "{\"type\": \"service_account\", \"private_key\": "
        + "\"SECRET-SHOULD-NOT-LEAK\"}\n[default\naws_secret_access_key=SECRET-SHOULD-NOT-LEAK");
    assertThatThrownBy(() -> Backends.open(BackendConfig.of(provider, URI.create("http://127.0.0.1:1"), null, true,
        garbled, false)))
        .isInstanceOfSatisfying(BackendException.class, e -> {
          assertThat(e.kind()).isEqualTo(BackendException.Kind.OTHER);
          assertThat(e.getMessage()).contains(garbled.toString()).doesNotContain("SECRET");
          assertThat(e.getCause()).isNull();
        });
  }

  @Test
  void open_anonymous_ignoresCredentialsFile() throws Exception {
    try (Backend b = Backends.open(BackendConfig.of(Provider.AWS, URI.create("http://127.0.0.1:1"), null, true,
        tmp.resolve("absent"), true))) {
      assertThat(b).isNotNull();
    }
  }
}
