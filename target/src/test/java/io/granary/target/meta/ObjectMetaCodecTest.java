package io.granary.target.meta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.granary.clustermap.bucket.ChecksumType;
import java.io.IOException;
import java.util.Arrays;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

class ObjectMetaCodecTest {

  @ParameterizedTest
  @EnumSource(ChecksumType.class)
  void decode_ofEncode_isIdentity_forEveryChecksumType(ChecksumType type) throws IOException {
    ObjectMeta m = new ObjectMeta(2L << 30, type, "0123456789abcdef".repeat(4), 1_790_000_000_123L);
    assertThat(ObjectMetaCodec.decode(ObjectMetaCodec.encode(m))).isEqualTo(m);
  }

  @Test
  void encode_isStable_firstByteIsFormatVersionOne() {
    byte[] b = ObjectMetaCodec.encode(new ObjectMeta(0, ChecksumType.XXHASH64, "00", 0));
    assertThat(b[0]).isEqualTo((byte) 1);
    assertThat(b[17]).as("xxhash64 type code").isEqualTo((byte) 1);
    assertThat(b).hasSize(1 + 8 + 8 + 1 + 1 + 2);
  }

  @Test
  void decode_truncatedOrUnknown_throwsIOException() {
    byte[] good = ObjectMetaCodec.encode(new ObjectMeta(5, ChecksumType.MD5, "ab", 7));
    assertThatThrownBy(() -> ObjectMetaCodec.decode(Arrays.copyOf(good, good.length - 1)))
        .isInstanceOf(IOException.class).hasMessageContaining("corrupt");
    byte[] future = good.clone();
    future[0] = 9;
    assertThatThrownBy(() -> ObjectMetaCodec.decode(future)).hasMessageContaining("version 9");
    byte[] badType = good.clone();
    badType[17] = 42;
    assertThatThrownBy(() -> ObjectMetaCodec.decode(badType)).hasMessageContaining("type code 42");
  }
}
