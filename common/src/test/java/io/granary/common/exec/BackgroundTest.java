package io.granary.common.exec;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@link Background}: its threads, and JVM options that only ever lower a thread's priority. */
class BackgroundTest {
  @Test
  void threads_areDaemonsAtTheLowestPriority_namedAfterTheirPool() {
    Thread t = Background.threads("rebalance-t1").newThread(() -> { });
    assertThat(t.getPriority()).isEqualTo(Thread.MIN_PRIORITY);
    assertThat(t.isDaemon()).isTrue();
    assertThat(t.getName()).startsWith("rebalance-t1-");
  }

  @Test
  void jvmOptions_lowerTheBackgroundPriority_andMapEveryOtherToNiceZero() {
    assertThat(Background.JVM_OPTIONS).contains("-XX:ThreadPriorityPolicy=1", "-XX:JavaPriority1_To_OSPriority=10",
        "-XX:CompilerThreadPriority=10", "-XX:VMThreadPriority=0");
    for (int p = 2; p <= 10; p++) {
      if (p != Thread.NORM_PRIORITY) { // 5 is nice 0 already
        assertThat(Background.JVM_OPTIONS).as("priority %d", p).contains("-XX:JavaPriority" + p + "_To_OSPriority=0");
      }
    }
    assertThat(Background.JVM_OPTIONS).as("no option asks for a negative nice value, which needs privileges")
        .noneMatch(o -> o.contains("=-"));
  }
}
