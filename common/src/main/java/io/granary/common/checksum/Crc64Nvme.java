package io.granary.common.checksum;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.Checksum;

/**
 * CRC-64/NVME, the checksum S3 computes for objects uploaded without one ({@code x-amz-checksum-crc64nvme}):
 * reflected polynomial 0x9A6C9329AC4BC9B5, initial value and final xor all ones; "123456789" checks to
 * 0xAE8B14860A799888. Slicing-by-8 (eight bytes per step through eight tables), which runs several times faster
 * than a byte at a time; direct buffers are read in place. Not thread-safe.
 */
public final class Crc64Nvme implements Checksum {
  private static final long POLY_REFLECTED = 0x9A6C9329AC4BC9B5L;
  private static final long[][] T = tables();
  // One field per table: the JIT then drops the outer array's loads and checks from the inner loop.
  private static final long[] T0 = T[0];
  private static final long[] T1 = T[1];
  private static final long[] T2 = T[2];
  private static final long[] T3 = T[3];
  private static final long[] T4 = T[4];
  private static final long[] T5 = T[5];
  private static final long[] T6 = T[6];
  private static final long[] T7 = T[7];

  private long crc = -1L;

  private static long[][] tables() {
    long[][] t = new long[8][256];
    for (int i = 0; i < 256; i++) {
      long c = i;
      for (int k = 0; k < 8; k++) {
        c = (c & 1) != 0 ? (c >>> 1) ^ POLY_REFLECTED : c >>> 1;
      }
      t[0][i] = c;
    }
    for (int i = 0; i < 256; i++) {
      for (int s = 1; s < 8; s++) {
        t[s][i] = t[0][(int) (t[s - 1][i] & 0xff)] ^ (t[s - 1][i] >>> 8);
      }
    }
    return t;
  }

  @Override
  public void update(int b) {
    crc = T0[(int) ((crc ^ b) & 0xff)] ^ (crc >>> 8);
  }

  @Override
  public void update(byte[] b, int off, int len) {
    update(ByteBuffer.wrap(b, off, len));
  }

  /** Consumes the buffer's remaining bytes (its position ends at its limit), heap or direct, without copying. */
  @Override
  public void update(ByteBuffer buffer) {
    ByteBuffer le = buffer.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    long c = crc;
    int pos = le.position();
    int end = le.limit();
    for (; end - pos >= 8; pos += 8) {
      long x = c ^ le.getLong(pos);
      c = T7[(int) x & 0xff] ^ T6[(int) (x >>> 8) & 0xff] ^ T5[(int) (x >>> 16) & 0xff]
          ^ T4[(int) (x >>> 24) & 0xff] ^ T3[(int) (x >>> 32) & 0xff] ^ T2[(int) (x >>> 40) & 0xff]
          ^ T1[(int) (x >>> 48) & 0xff] ^ T0[(int) (x >>> 56)];
    }
    for (; pos < end; pos++) {
      c = T0[(int) ((c ^ le.get(pos)) & 0xff)] ^ (c >>> 8);
    }
    crc = c;
    buffer.position(end);
  }

  @Override
  public long getValue() {
    return ~crc;
  }

  @Override
  public void reset() {
    crc = -1L;
  }
}
