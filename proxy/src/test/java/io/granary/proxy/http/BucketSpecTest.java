package io.granary.proxy.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.granary.clustermap.ClusterJson;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.clustermap.bucket.Provider;
import io.granary.common.error.BadRequestException;
import org.junit.jupiter.api.Test;

class BucketSpecTest {
  private static BucketSpec parse(String json, boolean remote) throws Exception {
    return BucketSpec.parse(json == null ? null : ClusterJson.mapper().readTree(json), remote);
  }

  @Test
  void remoteSettings_areRead_withTtlUnits() throws Exception {
    BucketSpec s = parse("{\"checksum\":\"md5\",\"backend\":{\"endpoint\":\"http://127.0.0.1:9000\",\"region\":"
        + "\"eu-west-1\",\"pathStyle\":true,\"credentialsFile\":\"/s/c\"},\"freshness\":{\"ttl\":\"5m\",\"sync\":true}}",
        true);
    assertThat(s.checksum()).isEqualTo(ChecksumType.MD5);
    assertThat(s.backend().endpoint()).isEqualTo("http://127.0.0.1:9000");
    assertThat(s.backend().pathStyle()).isTrue();
    assertThat(s.freshness().ttlSeconds()).isEqualTo(300);
    assertThat(s.freshness().sync()).isTrue();
    assertThat(BucketSpec.ttlSeconds("never")).isEqualTo(-1);
    assertThat(BucketSpec.ttlSeconds("0")).isZero();
    assertThat(BucketSpec.ttlSeconds("2h")).isEqualTo(7200);
    assertThat(parse(null, false).checksumFor(Provider.AIS)).isEqualTo(ChecksumType.XXHASH64);
    assertThat(parse(null, true).checksumFor(Provider.AWS)).isEqualTo(ChecksumType.MD5);
    assertThat(parse("{}", true).checksumFor(Provider.GCP)).isEqualTo(ChecksumType.CRC32C);
    assertThat(s.checksumFor(Provider.GCP)).as("asked for").isEqualTo(ChecksumType.MD5);
  }

  @Test
  void badInput_isA400_thatSaysWhatIsWrong() {
    assertThatThrownBy(() -> parse("{\"backend\":{\"endpint\":\"x\"}}", true)).isInstanceOf(BadRequestException.class)
        .hasMessageContaining("endpint");
    assertThatThrownBy(() -> parse("{\"backend\":{\"endpoint\":\"ftp://x\"}}", true))
        .isInstanceOf(BadRequestException.class).hasMessageContaining("http");
    assertThatThrownBy(() -> parse("{\"freshness\":{\"ttl\":\"soon\"}}", true))
        .isInstanceOf(BadRequestException.class).hasMessageContaining("ttl");
    assertThatThrownBy(() -> parse("{\"backend\":{}}", false)).isInstanceOf(BadRequestException.class)
        .hasMessageContaining("remote");
    assertThatThrownBy(() -> parse("[1]", true)).isInstanceOf(BadRequestException.class);
    assertThatThrownBy(() -> parse("{\"backend\":{\"pathStyle\":\"yes\"}}", true))
        .isInstanceOf(BadRequestException.class);
  }
}
