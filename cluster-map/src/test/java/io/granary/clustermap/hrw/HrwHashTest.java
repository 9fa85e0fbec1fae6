package io.granary.clustermap.hrw;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.Provider;
import java.nio.charset.StandardCharsets;
import net.openhft.hashing.LongHashFunction;
import org.junit.jupiter.api.Test;

class HrwHashTest {

  @Test
  void mix_matchesAistoreXoshiroVectors() {
    // cmn/xoshiro256/xoshiro256_test.go in NVIDIA/aistore
    assertThat(HrwHash.mix(0)).isEqualTo(Long.parseUnsignedLong("1905207664160064169"));
    assertThat(HrwHash.mix(4573842)).isEqualTo(Long.parseUnsignedLong("5026071747115404967"));
  }

  @Test
  void digest_isXxh64WithMlcg32Seed() {
    long expected = LongHashFunction.xx(1103515245L).hashBytes("t1".getBytes(StandardCharsets.UTF_8));
    assertThat(HrwHash.digest("t1")).isEqualTo(expected);
    // XXH64("abc", seed 0) = 0x44bc2cf5ad770999 confirms the library is plain XXH64.
    assertThat(LongHashFunction.xx(0).hashBytes("abc".getBytes(StandardCharsets.UTF_8)))
        .isEqualTo(0x44bc2cf5ad770999L);
  }

  @Test
  void placementKey_isAistoreUname() {
    assertThat(PlacementKey.of(new Bucket(Provider.AWS, "foo"), "a/b.jpg")).isEqualTo("aws/@#/foo/a/b.jpg");
    assertThat(PlacementKey.of(Bucket.local("bkt"), "x")).isEqualTo("ais/@#/bkt/x");
  }

  @Test
  void digest_hashesUtf8NotUtf16() {
    String name = "ünïcødé/日本";
    long expected = LongHashFunction.xx(HrwHash.SEED).hashBytes(name.getBytes(StandardCharsets.UTF_8));
    assertThat(HrwHash.digest(name)).isEqualTo(expected);
  }
}
