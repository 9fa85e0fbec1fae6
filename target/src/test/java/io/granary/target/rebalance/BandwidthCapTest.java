package io.granary.target.rebalance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class BandwidthCapTest {
  @Test
  void none_sendsWholeObjectsAtOnce() {
    assertThat(BandwidthCap.of(0)).isSameAs(BandwidthCap.NONE);
    assertThat(BandwidthCap.NONE.capped()).isFalse();
    assertThat(BandwidthCap.NONE.region(5L << 30)).isEqualTo(5L << 30);
  }

  @Test
  void region_isATenthOfASecond_between256KiBAnd8MiB() {
    assertThat(BandwidthCap.of(1L << 20).region(100L << 20)).isEqualTo(256L << 10);
    assertThat(BandwidthCap.of(40L << 20).region(100L << 20)).isEqualTo(4L << 20);
    assertThat(BandwidthCap.of(1L << 30).region(100L << 20)).isEqualTo(8L << 20);
    assertThat(BandwidthCap.of(40L << 20).region(1000)).as("never more than is left").isEqualTo(1000);
  }

  @Test
  void of_negative_isRefused() {
    assertThatThrownBy(() -> BandwidthCap.of(-1)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void rebalanceConfig_checksItsBounds() {
    assertThatThrownBy(() -> new RebalanceConfig(0, 0)).hasMessageContaining("--rebalance-streams");
    assertThatThrownBy(() -> new RebalanceConfig(65, 0)).hasMessageContaining("--rebalance-streams");
    assertThatThrownBy(() -> new RebalanceConfig(4, -1)).hasMessageContaining("--rebalance-bandwidth");
    assertThatThrownBy(() -> new RebalanceConfig(4, 0, 0, java.time.Duration.ofSeconds(-1)))
        .hasMessageContaining("--join-settle").hasMessageContaining("-1000 ms");
    assertThat(new RebalanceConfig(4, 0, 0, java.time.Duration.ZERO).joinSettle()).isZero();
  }
}
