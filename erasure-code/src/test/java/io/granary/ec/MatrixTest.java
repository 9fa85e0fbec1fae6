package io.granary.ec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class MatrixTest {

  @Test
  void encoding_topSquareIsIdentity() {
    int[][] m = Matrix.encoding(10, 14);
    for (int r = 0; r < 10; r++) {
      for (int c = 0; c < 10; c++) {
        assertThat(m[r][c]).isEqualTo(r == c ? 1 : 0);
      }
    }
  }

  @Test
  void encoding_4plus2_parityRowsAreKlauspostDefault() {
    // klauspost/reedsolomon buildMatrix(4, 6): the rows under the identity.
    int[][] m = Matrix.encoding(4, 6);
    assertThat(m[4]).containsExactly(27, 28, 18, 20);
    assertThat(m[5]).containsExactly(28, 27, 20, 18);
  }

  @Test
  void invert_timesOriginal_isIdentity() {
    int[][] m = Matrix.encoding(6, 9);
    int[][] rows = {m[1], m[6], m[2], m[7], m[8], m[0]};
    int[][] product = Matrix.multiply(Matrix.invert(rows), rows);
    for (int r = 0; r < 6; r++) {
      for (int c = 0; c < 6; c++) {
        assertThat(product[r][c]).isEqualTo(r == c ? 1 : 0);
      }
    }
  }

  @Test
  void invert_singular_throws() {
    assertThatThrownBy(() -> Matrix.invert(new int[][] {{1, 2}, {1, 2}})).isInstanceOf(ArithmeticException.class);
  }
}
