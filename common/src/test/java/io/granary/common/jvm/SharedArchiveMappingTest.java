package io.granary.common.jvm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SharedArchiveMappingTest {
  @Test
  void givenOnJdk17Only() {
    assertThat(SharedArchiveMapping.jvmOptions(17))
        .containsExactly("-XX:+UnlockDiagnosticVMOptions", "-XX:ArchiveRelocationMode=0");
    assertThat(SharedArchiveMapping.jvmOptions(21)).isEmpty();
    assertThat(SharedArchiveMapping.jvmOptions(11)).isEmpty();
  }

  /** A JVM of this JDK starts with the options and, on 17 (where there are some), maps its archive unrelocated. */
  @Test
  void theJvmMapsTheArchiveWhereItWasDumped() throws Exception {
    List<String> options = SharedArchiveMapping.jvmOptions();
    String out = JvmRun.output(options, "-Xshare:auto", "-Xlog:cds=info", "-version");
    if (options.isEmpty()) {
      return; // another JDK than 17: nodes get no options, and it started without them
    }
    assertThat(out).as("the JDK's archive mapped at its dump address, not relocated")
        .containsPattern("Mapped static +region #0 at base 0x0*800000000 ")
        .doesNotContain("always map archive(s) at an alternative address");
  }
}
