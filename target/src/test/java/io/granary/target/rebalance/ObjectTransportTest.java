package io.granary.target.rebalance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.common.error.BadRequestException;
import io.granary.target.meta.FlexibleChecksum;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.meta.ObjectMetaCodec;
import io.granary.target.meta.RemoteVersion;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ObjectTransportTest {
  @Test
  void meta_roundTripsWhole() {
    ObjectMeta m = new ObjectMeta(42, ChecksumType.MD5, "0123456789abcdef0123456789abcdef", 99, "etag-3", "image/jpeg",
        Map.of("k", "v"), Map.of("content-encoding", "gzip"), List.of(20L, 22L), new RemoteVersion("e", "v", 5));
    assertThat(ObjectTransport.decodeMeta(ObjectMetaCodec.encode(m))).isEqualTo(m);
  }

  @Test
  void meta_carriesTheFlexibleChecksum_soItMovesWithTheObject() {
    ObjectMeta m = new ObjectMeta(42, ChecksumType.XXHASH64, "0123456789abcdef", 99, "etag-2", null, Map.of(), Map.of(),
        List.of(20L, 22L)).withFlexible(new FlexibleChecksum(ChecksumType.SHA1, "ab".repeat(20),
            FlexibleChecksum.Kind.COMPOSITE));
    assertThat(ObjectTransport.decodeMeta(ObjectMetaCodec.encode(m)).flexible()).isEqualTo(m.flexible());
  }

  @Test
  void decodeMeta_garbage_is400() {
    for (byte[] bad : new byte[][] {{}, {4, 1}, {99, 0, 0}}) {
      assertThatThrownBy(() -> ObjectTransport.decodeMeta(bad)).as(java.util.Arrays.toString(bad))
          .isInstanceOf(BadRequestException.class);
    }
  }

  @Test
  void recordLength_missingMalformedOutOfBoundsOrLongerThanTheBody_is400() {
    for (String bad : new String[] {null, "", "x", "-1", "0", String.valueOf(ObjectTransport.MAX_RECORD_BYTES + 1L),
        "99999999999999999999"}) {
      assertThatThrownBy(() -> ObjectTransport.recordLength(bad, 1 << 30)).as(String.valueOf(bad))
          .isInstanceOf(BadRequestException.class);
    }
    assertThatThrownBy(() -> ObjectTransport.recordLength("100", 99)).isInstanceOf(BadRequestException.class);
    assertThat(ObjectTransport.recordLength("100", 100)).isEqualTo(100);
  }

  @Test
  void aRecordWithManyPartChecksums_fitsTheBody_farBeyondAnyHeaderLimit() {
    List<String> parts = java.util.stream.IntStream.range(0, 10_000).mapToObj(i -> String.format("%064x", i)).toList();
    ObjectMeta m = new ObjectMeta(42, ChecksumType.XXHASH64, "0123456789abcdef", 99, "etag-10000", null, Map.of(),
        Map.of(), java.util.Collections.nCopies(10_000, 0L)).withFlexible(new FlexibleChecksum(ChecksumType.SHA256,
            "ab".repeat(32), FlexibleChecksum.Kind.COMPOSITE, parts));
    byte[] record = ObjectMetaCodec.encode(m);
    assertThat(record.length).isGreaterThan(64 * 1024).isLessThan(ObjectTransport.MAX_RECORD_BYTES);
    assertThat(ObjectTransport.recordLength(String.valueOf(record.length), record.length + 42L))
        .isEqualTo(record.length);
    assertThat(ObjectTransport.decodeMeta(record).flexible().parts()).isEqualTo(parts);
  }

  @Test
  void path_encodesTheNameAndNamesTheProvider() {
    BucketProps b = new BucketProps(Bucket.local("bkt"), "id1", ChecksumType.XXHASH64, Instant.EPOCH);
    assertThat(ObjectTransport.path(ObjectTransport.PUSH, b, "a b/ü?#%")).startsWith("/v1/transport/push/bkt/a%20b/")
        .endsWith("?provider=ais").doesNotContain(" ", "#").contains("%3F");
  }
}
