package io.granary.loader.workload;

import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The bytes of the objects the loader PUTs: a pure function of (object seed, position), so a PUT streams them
 * without holding the object and a verifying GET regenerates and compares them without having stored anything.
 *
 * <p>Word {@code w} (bytes {@code 8w..8w+7}, little-endian) is SplitMix64's finalizer applied to
 * {@code seed + w * golden}: random access, no state, about as fast as memory.
 */
public final class Content {
  private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long GOLDEN = 0x9E3779B97F4A7C15L;

  private Content() {}

  /** The seed of one object's content: FNV-1a over the name's UTF-8, mixed with the run seed. */
  public static long objectSeed(long runSeed, String name) {
    return mix(fnv1a(name) ^ mix(runSeed));
  }

  /** FNV-1a 64 of the UTF-8 bytes: stable across JVMs and hosts (unlike String.hashCode's spec for non-ASCII). */
  public static long fnv1a(String s) {
    long h = 0xcbf29ce484222325L;
    for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
      h ^= b & 0xff;
      h *= 0x100000001b3L;
    }
    return h;
  }

  /** Writes the object's bytes {@code [pos, pos+len)} into {@code dst[off..]}. */
  public static void fill(long seed, long pos, byte[] dst, int off, int len) {
    int i = 0;
    while (i < len) {
      long p = pos + i;
      int shift = (int) (p & 7);
      long v = mix(seed + (p >>> 3) * GOLDEN);
      if (shift == 0 && len - i >= 8) {
        LONGS.set(dst, off + i, v);
        i += 8;
        continue;
      }
      int n = Math.min(8 - shift, len - i);
      for (int k = 0; k < n; k++) {
        dst[off + i + k] = (byte) (v >>> ((shift + k) * 8));
      }
      i += n;
    }
  }

  /** True when {@code buf[off..off+len)} equals the object's bytes at {@code pos}; {@code scratch} is reused. */
  public static boolean matches(long seed, long pos, byte[] buf, int off, int len, byte[] scratch) {
    int done = 0;
    while (done < len) {
      int n = Math.min(scratch.length, len - done);
      fill(seed, pos + done, scratch, 0, n);
      if (!Arrays.equals(buf, off + done, off + done + n, scratch, 0, n)) {
        return false;
      }
      done += n;
    }
    return true;
  }

  /** A stream of one object's {@code size} bytes; each call makes a fresh stream (SDK retries re-read). */
  public static InputStream stream(long seed, long size) {
    return new InputStream() {
      private long pos;

      @Override
      public int read(byte[] b, int off, int len) {
        if (pos >= size) {
          return -1;
        }
        int n = (int) Math.min(len, size - pos);
        fill(seed, pos, b, off, n);
        pos += n;
        return n;
      }

      @Override
      public int read() {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
      }

      @Override
      public int available() {
        return (int) Math.min(Integer.MAX_VALUE, size - pos);
      }
    };
  }

  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
