package io.granary.ec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class StripeLayoutTest {

  @Test
  void fullStripesAndTail_shardSizeCountsOneSmallTailCell() {
    StripeLayout layout = new StripeLayout(4, 100, 4 * 100 * 3 + 10);

    assertThat(layout.fullStripes()).isEqualTo(3);
    assertThat(layout.tailBytes()).isEqualTo(10);
    assertThat(layout.tailCellSize()).isEqualTo(3);
    assertThat(layout.stripes()).isEqualTo(4);
    assertThat(layout.shardSize()).isEqualTo(303);
    assertThat(layout.cellSize(2)).isEqualTo(100);
    assertThat(layout.cellSize(3)).isEqualTo(3);
    assertThat(layout.objectBytes(3)).isEqualTo(10);
  }

  @Test
  void emptyObject_hasNoStripe() {
    StripeLayout layout = new StripeLayout(10, 1 << 20, 0);

    assertThat(layout.stripes()).isZero();
    assertThat(layout.shardSize()).isZero();
  }

  @Test
  void exactStripes_haveNoTail() {
    StripeLayout layout = new StripeLayout(2, 8, 32);

    assertThat(layout.stripes()).isEqualTo(2);
    assertThat(layout.tailCellSize()).isZero();
    assertThat(layout.shardSize()).isEqualTo(16);
  }

  @Test
  void invalid_throwsIllegalArgument() {
    assertThatThrownBy(() -> new StripeLayout(0, 8, 1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new StripeLayout(2, 0, 1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new StripeLayout(2, 8, -1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new StripeLayout(256, 1 << 30, 1)).hasMessageContaining("exceeds 2 GiB");
  }
}
