package io.granary.ec;

/**
 * The vectorisable passes of {@link GfKernel}: {@code acc = [2·]acc ⊕ a ⊕ b ⊕ ...} over the first {@code len}
 * longs. Each shape is its own plain loop (up to four sources fused) so that C2 compiles every one of them to SIMD.
 */
final class Passes {
  private Passes() {}

  /**
   * With {@code doubled} false, sets {@code acc} to the XOR of the staged inputs named by {@code sources} (zero when
   * there are none); with it true, to {@code 2·acc} (in GF(2^8), lane by lane) XOR those inputs.
   */
  static void xorSources(long[] acc, long[][] staged, int[] sources, boolean doubled, int len) {
    int n = sources.length;
    int s;
    if (doubled) {
      switch (Math.min(n, 4)) {
        case 0 -> times2(acc, len);
        case 1 -> times2Xor(acc, staged[sources[0]], len);
        case 2 -> times2Xor(acc, staged[sources[0]], staged[sources[1]], len);
        case 3 -> times2Xor(acc, staged[sources[0]], staged[sources[1]], staged[sources[2]], len);
        default -> times2Xor(acc, staged[sources[0]], staged[sources[1]], staged[sources[2]],
            staged[sources[3]], len);
      }
    } else {
      switch (Math.min(n, 4)) {
        case 0 -> java.util.Arrays.fill(acc, 0, len, 0L);
        case 1 -> System.arraycopy(staged[sources[0]], 0, acc, 0, len);
        case 2 -> set(acc, staged[sources[0]], staged[sources[1]], len);
        case 3 -> set(acc, staged[sources[0]], staged[sources[1]], staged[sources[2]], len);
        default -> set(acc, staged[sources[0]], staged[sources[1]], staged[sources[2]], staged[sources[3]], len);
      }
    }
    for (s = 4; s + 3 < n; s += 4) {
      xor(acc, staged[sources[s]], staged[sources[s + 1]], staged[sources[s + 2]], staged[sources[s + 3]], len);
    }
    for (; s < n; s++) {
      xor(acc, staged[sources[s]], len);
    }
  }

  private static void times2(long[] acc, int len) {
    for (int j = 0; j < len; j++) {
      acc[j] = Galois.times2(acc[j]);
    }
  }

  private static void times2Xor(long[] acc, long[] a, int len) {
    for (int j = 0; j < len; j++) {
      acc[j] = Galois.times2(acc[j]) ^ a[j];
    }
  }

  private static void times2Xor(long[] acc, long[] a, long[] b, int len) {
    for (int j = 0; j < len; j++) {
      acc[j] = Galois.times2(acc[j]) ^ a[j] ^ b[j];
    }
  }

  private static void times2Xor(long[] acc, long[] a, long[] b, long[] c, int len) {
    for (int j = 0; j < len; j++) {
      acc[j] = Galois.times2(acc[j]) ^ a[j] ^ b[j] ^ c[j];
    }
  }

  private static void times2Xor(long[] acc, long[] a, long[] b, long[] c, long[] d, int len) {
    for (int j = 0; j < len; j++) {
      acc[j] = Galois.times2(acc[j]) ^ a[j] ^ b[j] ^ c[j] ^ d[j];
    }
  }

  private static void set(long[] acc, long[] a, long[] b, int len) {
    for (int j = 0; j < len; j++) {
      acc[j] = a[j] ^ b[j];
    }
  }

  private static void set(long[] acc, long[] a, long[] b, long[] c, int len) {
    for (int j = 0; j < len; j++) {
      acc[j] = a[j] ^ b[j] ^ c[j];
    }
  }

  private static void set(long[] acc, long[] a, long[] b, long[] c, long[] d, int len) {
    for (int j = 0; j < len; j++) {
      acc[j] = a[j] ^ b[j] ^ c[j] ^ d[j];
    }
  }

  private static void xor(long[] acc, long[] a, int len) {
    for (int j = 0; j < len; j++) {
      acc[j] ^= a[j];
    }
  }

  private static void xor(long[] acc, long[] a, long[] b, long[] c, long[] d, int len) {
    for (int j = 0; j < len; j++) {
      acc[j] ^= a[j] ^ b[j] ^ c[j] ^ d[j];
    }
  }
}
