package io.granary.common.checksum;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

class Crc64NvmeTest {
  @Test
  void catalogueCheckValue_andTheCrcOfNothing() {
    Crc64Nvme crc = new Crc64Nvme();
    byte[] check = "123456789".getBytes(StandardCharsets.US_ASCII);
    crc.update(check, 0, check.length);
    assertThat(crc.getValue()).isEqualTo(0xAE8B14860A799888L);
    crc.reset();
    assertThat(crc.getValue()).isZero();
  }

  @Test
  void matchesTheBitwiseDefinition_forEveryLengthAndAlignment_onHeapAndDirectBuffers() {
    byte[] data = new byte[4099];
    new Random(11).nextBytes(data);
    ByteBuffer direct = ByteBuffer.allocateDirect(data.length).put(data).clear();
    Random r = new Random(12);
    for (int i = 0; i < 400; i++) {
      int off = r.nextInt(16);
      int len = i < 40 ? i : r.nextInt(data.length - off);
      long want = bitwise(data, off, len);

      Crc64Nvme heap = new Crc64Nvme();
      heap.update(data, off, len);
      assertThat(heap.getValue()).as("heap off %d len %d", off, len).isEqualTo(want);

      Crc64Nvme split = new Crc64Nvme(); // two direct pieces split at an odd point, as a stream delivers them
      int cut = len / 3;
      ByteBuffer a = direct.duplicate().position(off).limit(off + cut);
      ByteBuffer b = direct.duplicate().position(off + cut).limit(off + len);
      split.update(a);
      split.update(b);
      assertThat(split.getValue()).as("direct off %d len %d", off, len).isEqualTo(want);
      assertThat(a.hasRemaining() || b.hasRemaining()).isFalse();
    }
  }

  private static long bitwise(byte[] data, int off, int len) {
    long crc = -1L;
    for (int i = off; i < off + len; i++) {
      crc ^= data[i] & 0xff;
      for (int k = 0; k < 8; k++) {
        crc = (crc & 1) != 0 ? (crc >>> 1) ^ 0x9A6C9329AC4BC9B5L : crc >>> 1;
      }
    }
    return ~crc;
  }
}
