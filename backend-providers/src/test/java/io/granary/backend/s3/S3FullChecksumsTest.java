package io.granary.backend.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.backend.RemoteChecksum;
import io.granary.clustermap.bucket.ChecksumType;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;

class S3FullChecksumsTest {
  private static final String CRC32_B64 = "NhCmhg=="; // 0x3610a686, any 4 bytes

  @Test
  void aSinglePartObjectsCrc_isOfTheWholeContent() {
    RemoteChecksum c = S3FullChecksums.of(HeadObjectResponse.builder().eTag("\"9bb58f26192e4ba00f01e2e7b136bbd8\"")
        .checksumCRC32(CRC32_B64).build());
    assertThat(c).isEqualTo(new RemoteChecksum(ChecksumType.CRC32, "3610a686"));
  }

  @Test
  void aMultipartObjectsCrc_withoutFullObjectType_isComposite_andNotUsed() {
    assertThat(S3FullChecksums.of(HeadObjectResponse.builder().eTag("\"d41d8cd98f00b204e9800998ecf8427e-3\"")
        .checksumCRC32(CRC32_B64).build())).as("no type given, as some stores answer").isNull();
    assertThat(S3FullChecksums.of(HeadObjectResponse.builder().eTag("\"d41d8cd98f00b204e9800998ecf8427e-3\"")
        .checksumCRC32(CRC32_B64).checksumType("COMPOSITE").build())).isNull();
  }

  @Test
  void aMultipartObjectsCrc_markedFullObject_orACrc64Nvme_isOfTheWholeContent() {
    assertThat(S3FullChecksums.of(HeadObjectResponse.builder().eTag("\"d41d8cd98f00b204e9800998ecf8427e-3\"")
        .checksumCRC32(CRC32_B64).checksumType("FULL_OBJECT").build()))
        .isEqualTo(new RemoteChecksum(ChecksumType.CRC32, "3610a686"));
    assertThat(S3FullChecksums.of(HeadObjectResponse.builder().eTag("\"d41d8cd98f00b204e9800998ecf8427e-3\"")
        .checksumCRC64NVME("AAAAAAAAAAE=").build())).isEqualTo(new RemoteChecksum(ChecksumType.CRC64NVME,
        "0000000000000001"));
  }
}
