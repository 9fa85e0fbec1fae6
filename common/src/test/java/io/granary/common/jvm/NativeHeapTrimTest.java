package io.granary.common.jvm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class NativeHeapTrimTest {
  /** A JVM of this JDK starts with the options, and when there is one, trims at the interval. */
  @Test
  void aJvmOfThisJdkStartsWithTheOptionsAndTrims() throws Exception {
    List<String> options = NativeHeapTrim.jvmOptions();
    assertThat(options).allSatisfy(o -> assertThat(o).isEqualTo("-XX:TrimNativeHeapInterval=5000"));
    String out = JvmRun.output(options, "-XX:+PrintFlagsFinal", "-version");
    if (!options.isEmpty()) {
      assertThat(out).containsPattern("TrimNativeHeapInterval +=  *5000 ");
    } else {
      assertThat(out).as("no option only where the JVM lacks the flag").doesNotContain("TrimNativeHeapInterval");
    }
  }
}
