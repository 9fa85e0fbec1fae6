package io.granary.proxy.auth;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.proxy.auth.ChunkFeeder.Split;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import software.amazon.awssdk.checksums.DefaultChecksumAlgorithm;
import software.amazon.awssdk.checksums.SdkChecksum;

class ChecksumAlgorithmTest {
  private static final byte[] CHECK_INPUT = "123456789".getBytes(StandardCharsets.US_ASCII);

  @Test
  void crc64Nvme_catalogueCheckValue() {
    Crc64Nvme crc = new Crc64Nvme();
    crc.update(CHECK_INPUT, 0, CHECK_INPUT.length);

    assertThat(crc.getValue()).isEqualTo(0xAE8B14860A799888L);
    crc.reset();
    assertThat(crc.getValue()).isZero(); // the CRC of nothing
  }

  @Test
  void crc64Nvme_matchesBitwiseReferenceOnHeapAndDirectBuffers() {
    byte[] data = new byte[10_000];
    new Random(7).nextBytes(data);
    Crc64Nvme heap = new Crc64Nvme();
    Crc64Nvme direct = new Crc64Nvme();
    heap.update(ByteBuffer.wrap(data));
    ByteBuffer d = ByteBuffer.allocateDirect(data.length).put(data).flip();
    direct.update(d);

    assertThat(heap.getValue()).isEqualTo(bitwiseCrc64Nvme(data));
    assertThat(direct.getValue()).isEqualTo(bitwiseCrc64Nvme(data));
    assertThat(d.hasRemaining()).isFalse();
  }

  @ParameterizedTest
  @EnumSource(value = ChecksumAlgorithm.class, names = "CRC64NVME", mode = EnumSource.Mode.EXCLUDE)
  void running_matchesSdkChecksumAcrossSplitBuffers(ChecksumAlgorithm algorithm) {
    byte[] data = new byte[50_000];
    new Random(algorithm.ordinal()).nextBytes(data);
    ChecksumAlgorithm.Running ours = algorithm.start();
    ours.update(ByteBuffer.wrap(data, 0, 123));
    ours.update(ByteBuffer.allocateDirect(data.length - 123).put(data, 123, data.length - 123).flip());
    SdkChecksum sdk = SdkChecksum.forAlgorithm(switch (algorithm) {
      case CRC32 -> DefaultChecksumAlgorithm.CRC32;
      case CRC32C -> DefaultChecksumAlgorithm.CRC32C;
      case SHA1 -> DefaultChecksumAlgorithm.SHA1;
      case SHA256 -> DefaultChecksumAlgorithm.SHA256;
      case CRC64NVME -> throw new AssertionError("excluded");
    });
    sdk.update(data);

    assertThat(ours.finish()).isEqualTo(sdk.getChecksumBytes());
  }

  @Test
  void decode_crc64NvmeTrailer_isVerified() {
    byte[] data = "hello crc64".getBytes(StandardCharsets.US_ASCII);
    byte[] crc = ByteBuffer.allocate(8).putLong(bitwiseCrc64Nvme(data)).array();
    String b64 = Base64.getEncoder().encodeToString(crc);
    AwsChunkedDecoder d = new AwsChunkedDecoder(AwsChunkedDecoderTest.unsignedTrailerAuth(),
        List.of("x-amz-checksum-crc64nvme"), data.length);

    byte[] out = ChunkFeeder.decode(d, AwsChunkedDecoderTest.concat(AwsChunkedDecoderTest.ascii("b\r\n"), data,
        AwsChunkedDecoderTest.ascii("\r\n0\r\nx-amz-checksum-crc64nvme:" + b64 + "\r\n\r\n")), Split.ONE_BYTE);

    assertThat(out).isEqualTo(data);
    assertThat(d.checksum()).contains(new VerifiedChecksum(ChecksumAlgorithm.CRC64NVME, b64));
  }

  @Test
  void forHeader_knowsEveryS3Checksum() {
    for (ChecksumAlgorithm a : ChecksumAlgorithm.values()) {
      assertThat(ChecksumAlgorithm.forHeader(a.header().toUpperCase())).isEqualTo(a);
    }
    assertThat(ChecksumAlgorithm.forHeader("x-amz-checksum-md5")).isNull();
  }

  /** CRC-64/NVME bit by bit, straight from its definition (reflected 0x9A6C9329AC4BC9B5, init/xorout ~0). */
  private static long bitwiseCrc64Nvme(byte[] data) {
    long crc = -1L;
    for (byte b : data) {
      crc ^= b & 0xff;
      for (int k = 0; k < 8; k++) {
        crc = (crc & 1) != 0 ? (crc >>> 1) ^ 0x9A6C9329AC4BC9B5L : crc >>> 1;
      }
    }
    return ~crc;
  }
}
