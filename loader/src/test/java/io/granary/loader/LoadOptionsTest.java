package io.granary.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
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

  @Test
  void validate_zeroDuration_needsPutBudget() {
    assertThatThrownBy(() -> new LoadOptions(ONE, "b", Protocol.NATIVE, Duration.ZERO, 1, 1, 1, 50, 10, null, false,
        null, 0, 1, 1, Duration.ZERO, false, null, null)).hasMessageContaining("--max-puts");
    assertThat(new LoadOptions(ONE, "b", Protocol.NATIVE, Duration.ZERO, 1, 1, 1, 100, 10, null, false,
        null, 0, 1, 1, Duration.ZERO, false, null, null).maxPuts()).isEqualTo(10);
  }
}
