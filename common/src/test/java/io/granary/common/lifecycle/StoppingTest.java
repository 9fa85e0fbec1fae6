package io.granary.common.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.common.membership.Readiness;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Readiness blocked from the first moment of a graceful stop, whatever else holds. */
class StoppingTest {
  @Test
  void begin_blocksReadiness_once() {
    Stopping s = new Stopping();
    Readiness ready = Readiness.all(s, () -> List.of());
    assertThat(ready.blockers()).isEmpty();
    assertThat(s.begin()).isTrue();
    assertThat(s.begin()).as("only the first caller stops the node").isFalse();
    assertThat(ready.blockers()).containsExactly("is shutting down");
  }

  @Test
  void all_keepsEveryReason_inOrder() {
    Stopping s = new Stopping();
    s.begin();
    assertThat(Readiness.all(s, () -> List.of("has no available mountpath")).blockers())
        .containsExactly("is shutting down", "has no available mountpath");
  }
}
