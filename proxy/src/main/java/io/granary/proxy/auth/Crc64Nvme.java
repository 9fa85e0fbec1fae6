package io.granary.proxy.auth;

import java.nio.ByteBuffer;
import java.util.zip.Checksum;

/**
 * CRC-64/NVME (S3's {@code x-amz-checksum-crc64nvme}): reflected polynomial 0x9A6C9329AC4BC9B5, initial value and
 * final xor all ones; "123456789" checks to 0xAE8B14860A799888. Table-driven, a byte at a time. Not thread-safe.
 */
final class Crc64Nvme implements Checksum {
  private static final long POLY_REFLECTED = 0x9A6C9329AC4BC9B5L;
  private static final long[] TABLE = table();

  private long crc = -1L;

  private static long[] table() {
    long[] t = new long[256];
    for (int i = 0; i < 256; i++) {
      long c = i;
      for (int k = 0; k < 8; k++) {
        c = (c & 1) != 0 ? (c >>> 1) ^ POLY_REFLECTED : c >>> 1;
      }
      t[i] = c;
    }
    return t;
  }

  @Override
  public void update(int b) {
    crc = TABLE[(int) ((crc ^ b) & 0xff)] ^ (crc >>> 8);
  }

  @Override
  public void update(byte[] b, int off, int len) {
    long c = crc;
    for (int i = off; i < off + len; i++) {
      c = TABLE[(int) ((c ^ b[i]) & 0xff)] ^ (c >>> 8);
    }
    crc = c;
  }

  /** Reads direct buffers in place instead of the interface default's copy through a temporary array. */
  @Override
  public void update(ByteBuffer buffer) {
    if (buffer.hasArray()) {
      update(buffer.array(), buffer.arrayOffset() + buffer.position(), buffer.remaining());
      buffer.position(buffer.limit());
      return;
    }
    long c = crc;
    while (buffer.hasRemaining()) {
      c = TABLE[(int) ((c ^ buffer.get()) & 0xff)] ^ (c >>> 8);
    }
    crc = c;
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
