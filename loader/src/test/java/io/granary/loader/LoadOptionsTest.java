package io.granary.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LoadOptionsTest {
  private static final List<URI> ONE = List.of(URI.create("http://127.0.0.1:51080"));

  private static LoadOptions opts(Protocol p, String bucket, long min, long max, int pctPut, Path names,
      int loaderId, int loaders, String ak) {
    return new LoadOptions(ONE, bucket, p, Duration.ofSeconds(5), 4, min, max, pctPut, 0, names, false, null,
        loaderId, loaders, 1, Duration.ofSeconds(1), false, ak, ak);
  }

  @Test
  void parseSize_units_andBadUnitNamesTheFlag() {
    assertThat(LoadOptions.parseSize("--min-size", "150KiB")).isEqualTo(150 * 1024);
    assertThat(LoadOptions.parseSize("--max-size", "1MiB")).isEqualTo(1 << 20);
    assertThatThrownBy(() -> LoadOptions.parseSize("--min-size", "10XB"))
        .hasMessageStartingWith("--min-size: invalid size '10XB'").hasMessageNotContaining("\n");
  }

  @ParameterizedTest
  @CsvSource({"30s,30000", "2m,120000", "500ms,500", "1h,3600000", "0,0", "7,7000"})
  void parseDuration_units(String text, long millis) {
    assertThat(LoadOptions.parseDuration("--duration", text)).isEqualTo(Duration.ofMillis(millis));
  }

  @Test
  void parseDuration_garbage_isOneLine() {
    assertThatThrownBy(() -> LoadOptions.parseDuration("--duration", "2 weeks"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("--duration: invalid duration");
  }

  @Test
  void parseEndpoints_repeatedAndCommaSeparated() {
    assertThat(LoadOptions.parseEndpoints(List.of("http://a:1,http://b:2/", "http://c:3")))
        .containsExactly(URI.create("http://a:1"), URI.create("http://b:2"), URI.create("http://c:3"));
    assertThatThrownBy(() -> LoadOptions.parseEndpoints(List.of("ftp://x"))).hasMessageContaining("not an http");
    assertThatThrownBy(() -> LoadOptions.parseEndpoints(List.of("127.0.0.1:51080"))).hasMessageContaining("--endpoint");
  }

  @Test
  void protocol_unknown_listsTheKnownOnes() {
    assertThat(Protocol.parse("S3")).isEqualTo(Protocol.S3);
    assertThatThrownBy(() -> Protocol.parse("ftp")).hasMessage("unknown protocol 'ftp': use native, s3 or http");
  }

  @Test
  void validate_minAboveMax_rejected() {
    assertThatThrownBy(() -> opts(Protocol.NATIVE, "b", 2048, 1024, 50, null, 0, 1, null))
        .hasMessageContaining("--min-size").hasMessageContaining("larger than --max-size");
  }

  @Test
  void validate_ranges() {
    assertThatThrownBy(() -> opts(Protocol.NATIVE, "b", 1, 2, 101, null, 0, 1, null)).hasMessageContaining("--pct-put");
    assertThatThrownBy(() -> opts(Protocol.NATIVE, "b", 1, 2, 50, null, 2, 2, null)).hasMessageContaining("--loader-id");
    assertThatThrownBy(() -> opts(Protocol.NATIVE, null, 1, 2, 50, null, 0, 1, null)).hasMessageContaining("--bucket");
  }

  @Test
  void validate_httpNeedsNamesAndNoPuts_s3NeedsKeys() {
    assertThatThrownBy(() -> opts(Protocol.HTTP, null, 1, 2, 0, null, 0, 1, null)).hasMessageContaining("--names");
    assertThatThrownBy(() -> opts(Protocol.HTTP, null, 1, 2, 10, Path.of("n"), 0, 1, null))
        .hasMessageContaining("only GETs");
    assertThat(opts(Protocol.HTTP, null, 1, 2, 0, Path.of("n"), 0, 1, null).protocol()).isEqualTo(Protocol.HTTP);
    assertThatThrownBy(() -> opts(Protocol.S3, "b", 1, 2, 50, null, 0, 1, null)).hasMessageContaining("--access-key");
    assertThat(opts(Protocol.S3, "b", 1, 2, 50, null, 0, 1, "k").bucket()).isEqualTo("b");
  }

  /** Native, 5 s, GET-only unless {@code pctPut}; the flags of this slice as given. */
  private static LoadOptions opts(Protocol p, Duration d, int pctPut, int epochs, boolean unique, long off, long len,
      boolean direct, String secret) {
    return new LoadOptions(ONE, "b", p, d, 4, 1, 1, pctPut, 0, null, false, null, 0, 1, 1, Duration.ofSeconds(1),
        false, "k", "k", epochs, unique, off, len, direct, secret);
  }

  private static final String SECRET = "0123456789abcdef-secret";

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "negative epochs              | NATIVE | 5 | 0  | -1 | true  | 0  | 0  | false | | --epochs must not be negative",
      "epochs with PUTs             | NATIVE | 5 | 10 | 2  | true  | 0  | 0  | false | | --epochs reads a fixed set of "
          + "names once per epoch: it needs --pct-put 0",
      "epochs, uniform picks        | NATIVE | 5 | 0  | 2  | false | 0  | 0  | false | | --epochs reads every name "
          + "once per epoch: drop --unique-gets=false",
      "zero duration, no epochs     | NATIVE | 0 | 0  | 0  | true  | 0  | 0  | false | | --duration 0 runs until "
          + "--max-puts or --epochs; it needs --pct-put 100 and --max-puts N, or --epochs N",
      "negative range               | NATIVE | 5 | 0  | 0  | true  | -1 | 0  | false | | --read-off and --read-len "
          + "must not be negative",
      "direct over http             | HTTP   | 5 | 0  | 0  | true  | 0  | 0  | true  | " + SECRET + " | --direct works "
          + "with --protocol native or s3, not http",
      "direct without a secret      | NATIVE | 5 | 0  | 0  | true  | 0  | 0  | true  | | --direct needs the cluster "
          + "secret: env GRANARY_CLUSTER_SECRET, --cluster-secret-file FILE or --cluster-secret S (granary local "
          + "writes it to DATA/cluster-secret)",
      "short secret                 | NATIVE | 5 | 0  | 0  | true  | 0  | 0  | true  | short | --cluster-secret: a "
          + "cluster secret is at least 16 characters",
      "secret without direct        | NATIVE | 5 | 0  | 0  | true  | 0  | 0  | false | " + SECRET + " | "
          + "--cluster-secret and --cluster-secret-file are used only with --direct"})
  void validate_badCombinations_areOneLineNamingTheFlag(String name, Protocol p, int seconds, int pctPut, int epochs,
      boolean unique, long off, long len, boolean direct, String secret, String message) {
    assertThatThrownBy(() -> opts(p, Duration.ofSeconds(seconds), pctPut, epochs, unique, off, len, direct, secret))
        .isInstanceOf(IllegalArgumentException.class).hasMessage(message).hasMessageNotContaining("\n");
  }

  @Test
  void validate_goodCombinations() {
    LoadOptions epochs = opts(Protocol.NATIVE, Duration.ZERO, 0, 3, true, 0, 0, false, null);
    assertThat(epochs.epochs()).isEqualTo(3);
    assertThat(epochs.ranged()).isFalse();
    LoadOptions direct = opts(Protocol.NATIVE, Duration.ofSeconds(5), 50, 0, false, 4096, 0, true, SECRET);
    assertThat(direct.direct()).isTrue();
    assertThat(direct.ranged()).isTrue();
    assertThat(opts(Protocol.S3, Duration.ofSeconds(5), 0, 0, true, 0, 10, false, null).ranged()).isTrue();
    // S3 straight to targets signs with the S3 keys: no cluster secret needed, one from the environment unused
    assertThat(opts(Protocol.S3, Duration.ofSeconds(5), 0, 0, true, 0, 0, true, null).direct()).isTrue();
    assertThat(opts(Protocol.S3, Duration.ofSeconds(5), 0, 0, true, 0, 0, true, SECRET).direct()).isTrue();
  }

  @Test
  void legacyConstructor_uniqueGetsWholeObjectsThroughTheProxy() {
    LoadOptions o = opts(Protocol.NATIVE, "b", 1, 2, 50, null, 0, 1, null);
    assertThat(o.uniqueGets()).isTrue();
    assertThat(o.epochs()).isZero();
    assertThat(o.ranged()).isFalse();
    assertThat(o.direct()).isFalse();
    assertThat(o.clusterSecret()).isNull();
  }

  @Test
  void toString_neverShowsSecrets() {
    LoadOptions o = new LoadOptions(ONE, "b", Protocol.NATIVE, Duration.ofSeconds(5), 4, 1, 1, 0, 0, null, false,
        null, 0, 1, 1, Duration.ofSeconds(1), false, "AKIDEXAMPLE", "s3-secret-key-value", 0, true, 0, 0, true,
        SECRET);
    assertThat(o.toString()).doesNotContain(SECRET).doesNotContain("s3-secret-key-value")
        .doesNotContain("AKIDEXAMPLE").contains("clusterSecret=(set)").contains("direct=true");
  }

  @Test
  void clusterSecret_fromFlagFileOrEnvWithDirectOnly(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("cluster-secret"), SECRET + "\nsecond line\n");
    assertThat(LoadOptions.clusterSecret(null, file, true, "env-secret-0123456")).isEqualTo(SECRET);
    assertThat(LoadOptions.clusterSecret("flag", null, true, "env")).isEqualTo("flag");
    assertThat(LoadOptions.clusterSecret(null, null, true, "env-secret")).isEqualTo("env-secret");
    assertThat(LoadOptions.clusterSecret(null, null, false, "env-secret")).as("env alone is not a flag").isNull();
    assertThat(LoadOptions.clusterSecret(null, null, true, null)).isNull();
    assertThatThrownBy(() -> LoadOptions.clusterSecret("flag", file, true, null))
        .hasMessage("--cluster-secret and --cluster-secret-file: give one, not both");
    assertThatThrownBy(() -> LoadOptions.clusterSecret(null, dir.resolve("nope"), true, null))
        .hasMessage("--cluster-secret-file: no such file: " + dir.resolve("nope"));
    Path empty = Files.writeString(dir.resolve("empty"), "\n");
    assertThatThrownBy(() -> LoadOptions.clusterSecret(null, empty, true, null))
        .hasMessage("--cluster-secret-file: " + empty + " is empty");
  }

  @Test
  void validate_zeroDuration_needsPutBudget() {
    assertThatThrownBy(() -> new LoadOptions(ONE, "b", Protocol.NATIVE, Duration.ZERO, 1, 1, 1, 50, 10, null, false,
        null, 0, 1, 1, Duration.ZERO, false, null, null)).hasMessageContaining("--max-puts");
    assertThat(new LoadOptions(ONE, "b", Protocol.NATIVE, Duration.ZERO, 1, 1, 1, 100, 10, null, false,
        null, 0, 1, 1, Duration.ZERO, false, null, null).maxPuts()).isEqualTo(10);
  }
}
