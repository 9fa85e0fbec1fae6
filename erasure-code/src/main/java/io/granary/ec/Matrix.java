package io.granary.ec;

/**
 * Small dense matrices over GF(2^8), as rows of unsigned bytes held in ints: the encoding matrix and its inverted
 * sub-matrices. At most 256 × 256, built once per codec or per reconstruction, never on the per-byte path.
 */
final class Matrix {
  private Matrix() {}

  /**
   * The systematic encoding matrix of klauspost/reedsolomon's default ({@code buildMatrix}): the (D+P) × D
   * Vandermonde matrix {@code v[r][c] = r^c}, multiplied by the inverse of its top D × D square. Its top is then
   * the identity (data shards are stored as they are) and any D of its rows are independent, so any D shards
   * rebuild the rest. Same matrix, same parity bytes: what makes the shared test vectors meaningful.
   */
  static int[][] encoding(int dataShards, int totalShards) {
    int[][] vandermonde = new int[totalShards][dataShards];
    for (int r = 0; r < totalShards; r++) {
      for (int c = 0; c < dataShards; c++) {
        vandermonde[r][c] = Galois.pow(r, c);
      }
    }
    int[][] top = new int[dataShards][];
    System.arraycopy(vandermonde, 0, top, 0, dataShards);
    return multiply(vandermonde, invert(top));
  }

  static int[][] multiply(int[][] a, int[][] b) {
    int inner = b.length;
    int cols = b[0].length;
    int[][] out = new int[a.length][cols];
    for (int r = 0; r < a.length; r++) {
      for (int c = 0; c < cols; c++) {
        int v = 0;
        for (int k = 0; k < inner; k++) {
          v ^= Galois.mul(a[r][k], b[k][c]);
        }
        out[r][c] = v;
      }
    }
    return out;
  }

  /** The inverse of a square matrix, by Gauss-Jordan elimination; {@code m} is left unchanged. */
  static int[][] invert(int[][] m) {
    int n = m.length;
    int[][] work = new int[n][2 * n];
    for (int r = 0; r < n; r++) {
      if (m[r].length != n) {
        throw new IllegalArgumentException("not a square matrix: row " + r + " has " + m[r].length + " columns");
      }
      System.arraycopy(m[r], 0, work[r], 0, n);
      work[r][n + r] = 1;
    }
    for (int col = 0; col < n; col++) {
      int pivot = col;
      while (pivot < n && work[pivot][col] == 0) {
        pivot++;
      }
      if (pivot == n) {
        throw new ArithmeticException("singular matrix");
      }
      int[] swap = work[col];
      work[col] = work[pivot];
      work[pivot] = swap;
      int scale = Galois.inverse(work[col][col]);
      for (int c = 0; c < 2 * n; c++) {
        work[col][c] = Galois.mul(work[col][c], scale);
      }
      for (int r = 0; r < n; r++) {
        int factor = work[r][col];
        if (r != col && factor != 0) {
          for (int c = 0; c < 2 * n; c++) {
            work[r][c] ^= Galois.mul(factor, work[col][c]);
          }
        }
      }
    }
    int[][] inverse = new int[n][];
    for (int r = 0; r < n; r++) {
      inverse[r] = java.util.Arrays.copyOfRange(work[r], n, 2 * n);
    }
    return inverse;
  }
}
