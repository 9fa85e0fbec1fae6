package io.granary.it.support;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.SplittableRandom;

/**
 * Deterministic pseudo-random object content, regenerated from a seed instead of kept in memory: each
 * {@code nextLong()} of a {@link SplittableRandom} gives the next 8 bytes, least significant first. Whole words are
 * stored 8 bytes at a time, since the 2 GiB tests regenerate their object several times.
 */
public final class Content {
  private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class,
      ByteOrder.LITTLE_ENDIAN);

  private Content() {}

  public static byte[] bytes(long seed, int size) {
    byte[] b = new byte[size];
    new Generator(seed).fill(b, 0, size);
    return b;
  }

  /** An endless-enough stream of {@code size} deterministic bytes, generated as it is read. */
  public static InputStream stream(long seed, long size) {
    return new InputStream() {
      private final Generator g = new Generator(seed);
      private long left = size;

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
        g.fill(b, off, n);
        left -= n;
        return n;
      }

      @Override
      public void close() throws IOException {
        left = 0;
      }
    };
  }

  /** The byte sequence, which a read may stop anywhere in: the rest of a word goes to the next read. */
  private static final class Generator {
    private final SplittableRandom r;
    private long word;
    private int wordLeft;

    Generator(long seed) {
      r = new SplittableRandom(seed);
    }

    void fill(byte[] b, int off, int n) {
      int i = off;
      int end = off + n;
      while (wordLeft > 0 && i < end) {
        b[i++] = (byte) word;
        word >>>= 8;
        wordLeft--;
      }
      for (; end - i >= 8; i += 8) {
        LONG_LE.set(b, i, r.nextLong());
      }
      if (i < end) {
        word = r.nextLong();
        wordLeft = 8;
        while (i < end) {
          b[i++] = (byte) word;
          word >>>= 8;
          wordLeft--;
        }
      }
    }
  }
}
