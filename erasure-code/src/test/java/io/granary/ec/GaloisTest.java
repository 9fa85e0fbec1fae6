package io.granary.ec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class GaloisTest {

  @Test
  void mul_matchesCarrylessProductReducedBy0x11D() {
    for (int a = 0; a < 256; a++) {
      for (int b = 0; b < 256; b++) {
        assertThat(Galois.mul(a, b)).as("%d·%d", a, b).isEqualTo(slowMul(a, b));
      }
    }
  }

  @Test
  void inverse_timesValue_isOne() {
    for (int a = 1; a < 256; a++) {
      assertThat(Galois.mul(a, Galois.inverse(a))).isEqualTo(1);
    }
    assertThatThrownBy(() -> Galois.inverse(0)).isInstanceOf(ArithmeticException.class);
  }

  @Test
  void times2_onPackedBytes_equalsMulBy2InEveryLane() {
    for (int b = 0; b < 256; b++) {
      long packed = 0;
      for (int lane = 0; lane < 8; lane++) {
        packed |= (long) ((b + 37 * lane) & 0xFF) << (8 * lane);
      }
      long doubled = Galois.times2(packed);
      for (int lane = 0; lane < 8; lane++) {
        int in = (b + 37 * lane) & 0xFF;
        assertThat((int) (doubled >>> (8 * lane)) & 0xFF).isEqualTo(Galois.mul(2, in));
      }
    }
  }

  @Test
  void pow_followsKlauspostGalExp() {
    assertThat(Galois.pow(0, 0)).isEqualTo(1);
    assertThat(Galois.pow(0, 3)).isZero();
    assertThat(Galois.pow(2, 8)).isEqualTo(0x1D);
    assertThat(Galois.pow(3, 2)).isEqualTo(Galois.mul(3, 3));
  }

  private static int slowMul(int a, int b) {
    int product = 0;
    for (int bit = 0; bit < 8; bit++) {
      if (((b >>> bit) & 1) != 0) {
        product ^= a << bit;
      }
    }
    for (int bit = 15; bit >= 8; bit--) {
      if (((product >>> bit) & 1) != 0) {
        product ^= 0x11D << (bit - 8);
      }
    }
    return product;
  }
}
