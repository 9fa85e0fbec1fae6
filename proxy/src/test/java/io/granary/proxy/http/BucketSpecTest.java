package io.granary.proxy.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.granary.clustermap.ClusterJson;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.clustermap.bucket.Protection;
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

  @Test
  void protection_numbersBooleansAndText_read_forAnyBucket() throws Exception {
    Protection local = parse("{\"protection\":{\"mirror.copies\":2,\"checksum.validateWarmGet\":true}}", false)
        .protection();
    assertThat(local).isEqualTo(new Protection(2, 0, 0, Protection.DEFAULT_EC_OBJ_SIZE_LIMIT, true));
    Protection remote = parse("{\"protection\":{\"ec.data\":\"4\",\"ec.parity\":\"2\"}}", true).protection();
    assertThat(remote.ecData()).isEqualTo(4);
    assertThat(remote.ecParity()).isEqualTo(2);
    assertThat(parse(null, false).protection()).isEqualTo(Protection.NONE);
    assertThat(parse("{\"checksum\":\"md5\"}", false).protection()).isEqualTo(Protection.NONE);
  }

  @Test
  void protection_settingsApplyOverTheCurrentOnes() throws Exception {
    Protection current = new Protection(2, 1, 1, 1024, true);
    Protection next = BucketSpec.protection(ClusterJson.mapper().readTree("{\"mirror.copies\":3}"), current);
    assertThat(next).isEqualTo(new Protection(3, 1, 1, 1024, true));
  }

  @Test
  void protection_badShapes_400() throws Exception {
    for (String body : new String[] {"{}", "[]", "{\"mirror.copies\":{\"n\":2}}", "{\"mirror.copies\":null}",
        "{\"mirror.copies\":[2]}", "{\"copies\":2}", "{\"ec.parity\":1}"}) {
      assertThatThrownBy(() -> BucketSpec.protection(ClusterJson.mapper().readTree(body), Protection.NONE))
          .as(body).isInstanceOf(BadRequestException.class);
    }
    assertThatThrownBy(() -> parse("{\"protection\":{\"mirror.copies\":0}}", false))
        .isInstanceOf(BadRequestException.class).hasMessageContaining("mirror.copies");
  }
}
