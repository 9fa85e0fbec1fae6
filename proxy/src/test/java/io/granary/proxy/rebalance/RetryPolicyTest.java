package io.granary.proxy.rebalance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {
  @Test
  void delayAfter_doublesPerFailedAttempt_upToTheMaximum() {
    RetryPolicy p = new RetryPolicy(Duration.ofSeconds(10), Duration.ofSeconds(60), 8);
    assertThat(p.delayAfter(1)).isEqualTo(Duration.ofSeconds(10));
    assertThat(p.delayAfter(2)).isEqualTo(Duration.ofSeconds(20));
    assertThat(p.delayAfter(3)).isEqualTo(Duration.ofSeconds(40));
    assertThat(p.delayAfter(4)).isEqualTo(Duration.ofSeconds(60));
    assertThat(p.delayAfter(1000)).as("no overflow").isEqualTo(Duration.ofSeconds(60));
  }

  @Test
  void mayRetry_untilTheAttemptsAreUsedUp_oneMeansNever() {
    RetryPolicy p = new RetryPolicy(Duration.ofSeconds(1), Duration.ofSeconds(1), 3);
    assertThat(p.mayRetry(1)).isTrue();
    assertThat(p.mayRetry(2)).isTrue();
    assertThat(p.mayRetry(3)).isFalse();
    assertThat(new RetryPolicy(Duration.ofSeconds(1), Duration.ofSeconds(1), 1).mayRetry(1)).isFalse();
  }

  @Test
  void constructor_refusesATightLoop_andNonsense() {
    assertThatThrownBy(() -> new RetryPolicy(Duration.ofMillis(10), Duration.ofSeconds(1), 3))
        .hasMessageContaining("at least 1s");
    assertThatThrownBy(() -> new RetryPolicy(Duration.ofSeconds(10), Duration.ofSeconds(5), 3))
        .hasMessageContaining("--rebalance-retry-max-delay");
    assertThatThrownBy(() -> new RetryPolicy(Duration.ofSeconds(1), Duration.ofSeconds(1), 0))
        .hasMessageContaining("--rebalance-attempts");
  }
}
