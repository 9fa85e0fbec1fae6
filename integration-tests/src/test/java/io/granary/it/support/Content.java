package io.granary.it.support;

import java.io.IOException;
import java.io.InputStream;
import java.util.SplittableRandom;

/** Deterministic pseudo-random object content, regenerated from a seed instead of kept in memory. */
public final class Content {
  private Content() {}

  public static byte[] bytes(long seed, int size) {
    byte[] b = new byte[size];
    SplittableRandom r = new SplittableRandom(seed);
    for (int i = 0; i < size; ) {
      long v = r.nextLong();
      for (int k = 0; k < 8 && i < size; k++, i++) {
        b[i] = (byte) (v >>> (k * 8));
      }
    }
    return b;
  }

  /** An endless-enough stream of {@code size} deterministic bytes, generated as it is read. */
  public static InputStream stream(long seed, long size) {
    return new InputStream() {
      private final SplittableRandom r = new SplittableRandom(seed);
      private long left = size;
      private long word;
      private int wordLeft;

      @Override
      public int read() {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
      }

      @Override
      public int read(byte[] b, int off, int len) {
        if (left <= 0) {
          return -1;
        }
        int n = (int) Math.min(len, left);
        for (int i = 0; i < n; i++) {
          if (wordLeft == 0) {
            word = r.nextLong();
            wordLeft = 8;
          }
          b[off + i] = (byte) word;
          word >>>= 8;
          wordLeft--;
        }
        left -= n;
        return n;
      }

      @Override
      public void close() throws IOException {
        left = 0;
      }
    };
  }
}
