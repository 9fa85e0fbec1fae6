package io.granary.target.rebalance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.common.error.BadRequestException;
import io.granary.target.meta.FlexibleChecksum;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.meta.RemoteVersion;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ObjectTransportTest {
  @Test
  void meta_roundTripsWhole() {
    ObjectMeta m = new ObjectMeta(42, ChecksumType.MD5, "0123456789abcdef0123456789abcdef", 99, "etag-3", "image/jpeg",
        Map.of("k", "v"), Map.of("content-encoding", "gzip"), List.of(20L, 22L), new RemoteVersion("e", "v", 5));
    assertThat(ObjectTransport.decodeMeta(ObjectTransport.encodeMeta(m))).isEqualTo(m);
  }

  @Test
  void meta_carriesTheFlexibleChecksum_soItMovesWithTheObject() {
    ObjectMeta m = new ObjectMeta(42, ChecksumType.XXHASH64, "0123456789abcdef", 99, "etag-2", null, Map.of(), Map.of(),
        List.of(20L, 22L)).withFlexible(new FlexibleChecksum(ChecksumType.SHA1, "ab".repeat(20),
            FlexibleChecksum.Kind.COMPOSITE));
    assertThat(ObjectTransport.decodeMeta(ObjectTransport.encodeMeta(m)).flexible()).isEqualTo(m.flexible());
  }

  @Test
  void decodeMeta_missingOrGarbage_is400() {
    for (String bad : new String[] {null, "", "%%%", Base64.getUrlEncoder().encodeToString(new byte[] {4, 1}),
        Base64.getUrlEncoder().encodeToString(new byte[] {99, 0, 0})}) {
      assertThatThrownBy(() -> ObjectTransport.decodeMeta(bad)).as(String.valueOf(bad))
          .isInstanceOf(BadRequestException.class);
    }
  }

  @Test
  void path_encodesTheNameAndNamesTheProvider() {
    BucketProps b = new BucketProps(Bucket.local("bkt"), "id1", ChecksumType.XXHASH64, Instant.EPOCH);
    assertThat(ObjectTransport.path(ObjectTransport.PUSH, b, "a b/ü?#%")).startsWith("/v1/transport/push/bkt/a%20b/")
        .endsWith("?provider=ais").doesNotContain(" ", "#").contains("%3F");
  }
}
