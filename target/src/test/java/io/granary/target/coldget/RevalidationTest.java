package io.granary.target.coldget;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.backend.RemoteObject;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.clustermap.bucket.Freshness;
import io.granary.clustermap.bucket.Provider;
import io.granary.clustermap.bucket.RemoteBackend;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.meta.RemoteVersion;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RevalidationTest {
  private static BucketProps bucket(long ttl) {
    return new BucketProps(new Bucket(Provider.AWS, "bkt1"), "id1", ChecksumType.XXHASH64, Instant.EPOCH,
        new RemoteBackend(null, null, true, null, null, true), new Freshness(ttl, false));
  }

  private static ObjectMeta cached(long size, String etag, String version, long mtime) {
    return new ObjectMeta(size, ChecksumType.XXHASH64, "00", mtime, etag, null, Map.of(), Map.of(), List.of(),
        new RemoteVersion(etag, version, 0));
  }

  private static RemoteObject remote(long size, String etag, String version) {
    return new RemoteObject("k", size, etag, version, 0, null, null, null, Map.of());
  }

  @Test
  void aCopyIsCheckedOnceItsTtlHasPassed_sinceItWasStoredOrLastChecked() {
    Revalidation r = new Revalidation();
    ObjectMeta m = cached(10, "e1", null, 1_000);
    assertThat(r.mustRevalidate(bucket(60), "k", m, false, 1_000 + 59_999)).isFalse();
    assertThat(r.mustRevalidate(bucket(60), "k", m, false, 1_000 + 60_000)).isTrue();
    r.checked("k", 100_000);
    assertThat(r.mustRevalidate(bucket(60), "k", m, false, 159_999)).isFalse();
    assertThat(r.mustRevalidate(bucket(60), "k", m, true, 100_001)).as("latest forces it").isTrue();
    assertThat(r.mustRevalidate(bucket(0), "k", m, false, 100_000)).as("ttl 0: every read").isTrue();
    assertThat(r.mustRevalidate(bucket(-1), "k", m, false, Long.MAX_VALUE)).as("never").isFalse();
  }

  @Test
  void sameVersion_prefersVersionIds_thenETags_andAlwaysNeedsTheSameSize() {
    assertThat(Revalidation.sameVersion(cached(10, "e1", "7", 0), remote(10, "e2", "7"))).isTrue();
    assertThat(Revalidation.sameVersion(cached(10, "e1", "7", 0), remote(10, "e1", "8"))).isFalse();
    assertThat(Revalidation.sameVersion(cached(10, "e1", null, 0), remote(10, "\"e1\"", null))).isTrue();
    assertThat(Revalidation.sameVersion(cached(10, "e1", null, 0), remote(10, "e2", null))).isFalse();
    assertThat(Revalidation.sameVersion(cached(10, "e1", null, 0), remote(11, "e1", null))).isFalse();
    assertThat(Revalidation.sameVersion(cached(10, null, null, 0), remote(10, null, null)))
        .as("nothing to compare: fetch again").isFalse();
  }
}
