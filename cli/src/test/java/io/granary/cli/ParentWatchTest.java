package io.granary.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.cli.ParentWatch.Verdict;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The launcher watch's decisions: only a launcher surely gone stops a node; "cannot tell" never does. */
class ParentWatchTest {
  private static final long LAUNCHER = 4242;

  private static ParentWatch child(OptionalLong parentNow, Verdict entry) {
    return new ParentWatch(LAUNCHER, true, () -> parentNow, pid -> entry);
  }

  @Test
  void look_child_parentStillTheLauncher_isAlive() {
    assertThat(child(OptionalLong.of(LAUNCHER), Verdict.GONE).look()).isEqualTo(Verdict.ALIVE);
  }

  @Test
  void look_child_reparented_isGone() {
    assertThat(child(OptionalLong.of(1), Verdict.ALIVE).look()).as("the kernel re-parents orphans")
        .isEqualTo(Verdict.GONE);
  }

  @Test
  void look_child_parentUnreadable_asksTheProcessEntry() {
    // At the fd limit reading /proc/self/stat fails; a stat of /proc/PID needs no descriptor.
    assertThat(child(OptionalLong.empty(), Verdict.ALIVE).look()).isEqualTo(Verdict.ALIVE);
    assertThat(child(OptionalLong.empty(), Verdict.CANNOT_TELL).look()).isEqualTo(Verdict.CANNOT_TELL);
    assertThat(child(OptionalLong.empty(), Verdict.GONE).look()).isEqualTo(Verdict.GONE);
  }

  @Test
  void look_notAChild_goesByTheProcessEntryOnly() {
    ParentWatch w = new ParentWatch(LAUNCHER, false, () -> OptionalLong.of(1), pid -> Verdict.ALIVE);
    assertThat(w.look()).isEqualTo(Verdict.ALIVE);
  }

  @Test
  void observe_cannotTell_neverStopsTheNode() {
    ParentWatch w = child(OptionalLong.empty(), Verdict.CANNOT_TELL);
    for (int i = 0; i < 1000; i++) {
      assertThat(w.observe(w.look())).isFalse();
    }
    assertThat(w.observe(Verdict.ALIVE)).isFalse();
    assertThat(w.observe(Verdict.GONE)).isTrue();
  }

  @Test
  void of_thisProcessesParent_isAlive() {
    long parent = ProcessHandle.current().parent().orElseThrow().pid();
    assertThat(ParentWatch.of(parent).look()).isEqualTo(Verdict.ALIVE);
  }
}
