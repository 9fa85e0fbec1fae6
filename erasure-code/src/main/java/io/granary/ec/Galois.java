package io.granary.ec;

/**
 * Arithmetic in GF(2^8) with the polynomial x^8 + x^4 + x^3 + x^2 + 1 (0x11D) and generator 2: the field of
 * klauspost/reedsolomon, Backblaze's JavaReedSolomon and most storage Reed-Solomon codes. Addition is XOR;
 * multiplication goes through log and exp tables.
 */
final class Galois {
  /** The reduction polynomial without its x^8 term. */
  static final int POLYNOMIAL = 0x1D;

  private static final int[] LOG = new int[256];
  /** exp[i] = 2^i, doubled in length so that exp[log a + log b] needs no modulo. */
  private static final byte[] EXP = new byte[510];
  /** MUL[a][b] = a·b: 64 KiB, for the byte-at-a-time paths (tails shorter than a machine word). */
  private static final byte[][] MUL = new byte[256][256];

  static {
    int x = 1;
    for (int i = 0; i < 255; i++) {
      EXP[i] = (byte) x;
      EXP[i + 255] = (byte) x;
      LOG[x] = i;
      x <<= 1;
      if (x >= 0x100) {
        x ^= 0x100 | POLYNOMIAL;
      }
    }
    for (int a = 0; a < 256; a++) {
      for (int b = 0; b < 256; b++) {
        MUL[a][b] = (a == 0 || b == 0) ? 0 : EXP[LOG[a] + LOG[b]];
      }
    }
  }

  private Galois() {}

  static int mul(int a, int b) {
    return MUL[a & 0xFF][b & 0xFF] & 0xFF;
  }

  /** The 256 products {@code c·b} for every byte {@code b}; shared, never modify it. */
  static byte[] mulTable(int c) {
    return MUL[c & 0xFF];
  }

  static int div(int a, int b) {
    if (b == 0) {
      throw new ArithmeticException("division by zero in GF(2^8)");
    }
    return a == 0 ? 0 : EXP[LOG[a] - LOG[b] + 255] & 0xFF;
  }

  static int inverse(int a) {
    return div(1, a);
  }

  /** a^n, with 0^0 = 1 (klauspost's {@code galExp}, which builds the Vandermonde matrix). */
  static int pow(int a, int n) {
    if (n == 0) {
      return 1;
    }
    if (a == 0) {
      return 0;
    }
    return EXP[(LOG[a] * n) % 255] & 0xFF;
  }

  /**
   * Multiplies eight field elements packed in a long by 2 (the "xtime" of AES): shift each byte left one bit and
   * reduce the bytes whose top bit fell off by the polynomial. {@code (c << 8) - c} turns each such byte's carry
   * bit into 0xFF without borrowing across bytes. Branch-free and lane-independent, so loops of it over
   * {@code long[]} are vectorised by the JIT.
   */
  static long times2(long v) {
    long carry = (v >>> 7) & 0x0101010101010101L;
    return ((v << 1) & 0xFEFEFEFEFEFEFEFEL) ^ (((carry << 8) - carry) & 0x1D1D1D1D1D1D1D1DL);
  }
}
