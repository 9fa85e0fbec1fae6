package io.granary.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Properties;
import org.junit.jupiter.api.Test;

class BufferPoolDefaultsTest {
  @Test
  void oneArenaPerCore() {
    Properties props = new Properties();
    BufferPoolDefaults.apply(props, 2);
    assertThat(props).containsEntry(BufferPoolDefaults.DIRECT_ARENAS, "2")
        .containsEntry(BufferPoolDefaults.HEAP_ARENAS, "2").hasSize(2);
  }

  @Test
  void settingsGivenOnTheCommandLineAreKept() {
    Properties props = new Properties();
    props.setProperty(BufferPoolDefaults.DIRECT_ARENAS, "8");
    BufferPoolDefaults.apply(props, 4);
    assertThat(props).containsEntry(BufferPoolDefaults.DIRECT_ARENAS, "8")
        .containsEntry(BufferPoolDefaults.HEAP_ARENAS, "4");
  }

  @Test
  void atLeastOneArena() {
    Properties props = new Properties();
    BufferPoolDefaults.apply(props, 0);
    assertThat(props).containsEntry(BufferPoolDefaults.DIRECT_ARENAS, "1");
  }
}
