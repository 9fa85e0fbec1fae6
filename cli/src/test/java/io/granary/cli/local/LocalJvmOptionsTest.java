package io.granary.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.common.exec.Background;
import io.granary.common.jvm.NativeHeapTrim;
import io.granary.common.jvm.SharedArchiveMapping;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The JVM options `granary local` gives its nodes: the defaults, then `--jvm-opt`s. */
class LocalJvmOptionsTest {
  private static final List<String> DEFAULTS = LocalCluster.Options.NODE_JVM_OPTIONS;

  @Test
  void defaults_areASmallGrowingHeapAndTheSerialCollector() {
    assertThat(DEFAULTS).contains("-Xms16m", "-Xmx512m", "-XX:+UseSerialGC", "-XX:+ExitOnOutOfMemoryError");
  }

  @Test
  void defaults_putBackgroundWorkAtALowerPriority() {
    assertThat(DEFAULTS).containsAll(Background.JVM_OPTIONS);
  }

  @Test
  void defaults_mapTheClassDataArchiveWhereItWasDumped() {
    assertThat(DEFAULTS).containsAll(SharedArchiveMapping.jvmOptions());
  }

  @Test
  void defaults_haveNoPerformanceDataSampler() {
    assertThat(DEFAULTS).contains("-XX:-UsePerfData");
  }

  @Test
  void defaults_trimTheNativeHeapWhereTheJvmCan() {
    assertThat(DEFAULTS).containsAll(NativeHeapTrim.jvmOptions());
  }

  @Test
  void extraOptions_comeAfterTheDefaults_soALaterHeapSizeWins() {
    assertThat(LocalCluster.Options.withExtraJvmOptions(DEFAULTS, List.of("-Xmx2g", "-Dgranary.transport=nio")))
        .startsWith("-Xms16m", "-Xmx512m", "-XX:+UseSerialGC", "-XX:+ExitOnOutOfMemoryError")
        .endsWith("-Xmx2g", "-Dgranary.transport=nio").hasSize(DEFAULTS.size() + 2);
  }

  @Test
  void anotherCollector_replacesTheDefaultOne() {
    // Two collectors would stop every node at start: "Conflicting collector combinations in option list".
    assertThat(LocalCluster.Options.withExtraJvmOptions(DEFAULTS, List.of("-XX:+UseG1GC")))
        .startsWith("-Xms16m", "-Xmx512m", "-XX:+ExitOnOutOfMemoryError").endsWith("-XX:+UseG1GC")
        .doesNotContain("-XX:+UseSerialGC").hasSize(DEFAULTS.size());
    assertThat(LocalCluster.Options.withExtraJvmOptions(DEFAULTS, List.of("-XX:+UseZGC", "-Xmx1g")))
        .doesNotContain("-XX:+UseSerialGC").contains("-XX:+UseZGC");
  }

  @Test
  void noExtraOptions_theDefaultsAsTheyAre() {
    assertThat(LocalCluster.Options.withExtraJvmOptions(DEFAULTS, List.of())).isEqualTo(DEFAULTS);
  }
}
