package io.granary.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TargetWeightTest {
  private static final long TIB = 1L << 40;
  private static final long GIB = 1L << 30;

  @TempDir
  Path dir;

  @Test
  void ofCapacity_tib_roundsToThreeDecimals() {
    assertThat(TargetWeight.ofCapacity(2 * TIB)).isEqualTo(2.0);
    assertThat(TargetWeight.ofCapacity(TIB + TIB / 2)).isEqualTo(1.5);
    assertThat(TargetWeight.ofCapacity(500 * GIB)).isEqualTo(0.488); // 0.48828...
    assertThat(TargetWeight.ofCapacity(3 * TIB + 1)).isEqualTo(3.0);
  }

  @Test
  void ofCapacity_tiny_isAtLeastMinimum() {
    assertThat(TargetWeight.ofCapacity(0)).isEqualTo(0.001);
    assertThat(TargetWeight.ofCapacity(100L << 20)).isEqualTo(0.001); // 100 MiB rounds to 0
  }

  @Test
  void resolve_number_isTakenAsGiven() throws Exception {
    assertThat(TargetWeight.resolve("2.5", List.of(dir), 0)).isEqualTo(2.5);
    assertThat(TargetWeight.resolve(" 1 ", List.of(dir), 0)).isEqualTo(1.0);
  }

  @Test
  void resolve_auto_withCapacity_sumsTheLimitOverMountpaths() throws Exception {
    List<Path> mps = List.of(dir.resolve("mp1"), dir.resolve("mp2"), dir.resolve("mp3"));
    assertThat(TargetWeight.resolve("auto", mps, 512 * GIB)).isEqualTo(1.5);
    assertThat(mps).noneMatch(Files::exists); // with a limit the disks are not looked at
  }

  @Test
  void resolve_auto_withoutCapacity_usesTheFileSystemSize_andCreatesMissingMountpaths() throws Exception {
    Path mp1 = dir.resolve("new/mp1");
    Path mp2 = dir.resolve("new/mp2");
    double w = TargetWeight.resolve("AUTO", List.of(mp1, mp2), 0);
    assertThat(mp1).isDirectory();
    assertThat(mp2).isDirectory();
    assertThat(w).isEqualTo(TargetWeight.ofCapacity(2 * Files.getFileStore(dir).getTotalSpace()));
  }

  @Test
  void resolve_text_failsNamingTheOption() {
    assertThatThrownBy(() -> TargetWeight.resolve("big", List.of(dir), 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--weight").hasMessageContaining("'big'");
  }
}
