package io.granary.common.s3.auth;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.common.s3.auth.ChunkFeeder.Split;
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

  // CRC-64/NVME itself is tested against its definition in common (Crc64NvmeTest); the SDK has it only with CRT.
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
