package io.granary.common.membership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.Node;
import io.granary.clustermap.NodeRole;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.BucketMetadata;
import io.granary.clustermap.hrw.PlacementKey;
import io.granary.common.error.ServiceUnavailableException;
import java.time.Instant;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class UploadHolderTest {
  private static final String UUID = "c0ffee00-0000-4000-8000-000000000002";
  private static final Bucket BUCKET = Bucket.local("mpu");
  private static final byte[] RANDOM = new byte[16];

  static {
    Arrays.fill(RANDOM, (byte) 0xab);
  }

  private static ClusterMetadataHolder.Snapshot snapshot(NodeState t2State) {
    Node primary = new Node("p1", NodeRole.PROXY, "http://127.0.0.1:51080", NodeState.ACTIVE, 1);
    ClusterMap m = ClusterMap.bootstrap(UUID, primary, Instant.parse("2026-01-01T00:00:00Z"))
        .withNode(new Node("t1", NodeRole.TARGET, "http://127.0.0.1:6001", NodeState.ACTIVE, 1))
        .withNode(new Node("t2", NodeRole.TARGET, "http://127.0.0.1:6002", t2State, 1));
    return new ClusterMetadataHolder.Snapshot(new ClusterMetadata(m, BucketMetadata.empty(UUID)), m.placement());
  }

  /** A key t1 owns while t2 is in placement. */
  private static String keyOfT1(ClusterMetadataHolder.Snapshot s) {
    for (int i = 0; ; i++) {
      String k = "k" + i;
      if (s.placement().owner(PlacementKey.digest(BUCKET, k)).orElseThrow().id().equals("t1")) {
        return k;
      }
    }
  }

  @Test
  void newId_namesItsTarget_andReadsBack() {
    String id = UploadHolder.newId("t-2.a_b", RANDOM);
    assertThat(id).isEqualTo("ab".repeat(16) + ".t-2.a_b");
    assertThat(UploadHolder.holderOf(id)).isEqualTo("t-2.a_b");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "abababababababababababababababab", "abababababababababababababababab.",
      "zzababababababababababababababab.t1", "abababababababababababababababab-t1", "abababababababababababababababab./x"})
  void holderOf_idsThatNameNoTarget_areNull(String id) {
    assertThat(UploadHolder.holderOf(id)).isNull();
  }

  @Test
  void require_routesToTheHolder_evenWhenItNoLongerOwnsTheKey_orLeftPlacement() {
    ClusterMetadataHolder.Snapshot s = snapshot(NodeState.ACTIVE);
    String key = keyOfT1(s);
    String id = UploadHolder.newId("t2", RANDOM);
    assertThat(UploadHolder.require(s, BUCKET, key, id).id()).isEqualTo("t2");
    assertThat(UploadHolder.require(snapshot(NodeState.DECOMMISSIONING), BUCKET, key, id).id()).isEqualTo("t2");
    assertThat(UploadHolder.require(snapshot(NodeState.MAINTENANCE), BUCKET, key, id).id()).isEqualTo("t2");
  }

  @Test
  void require_anOlderIdOrAHolderGoneFromTheMap_goesToTheKeysOwner() {
    ClusterMetadataHolder.Snapshot s = snapshot(NodeState.ACTIVE);
    String key = keyOfT1(s);
    assertThat(UploadHolder.require(s, BUCKET, key, "ab".repeat(16)).id()).isEqualTo("t1");
    assertThat(UploadHolder.require(s, BUCKET, key, UploadHolder.newId("t9", RANDOM)).id()).isEqualTo("t1");
  }

  @ParameterizedTest
  @ValueSource(strings = {"OFFLINE", "SUSPENDED"})
  void require_aHolderThatCannotAnswer_is503(String state) {
    ClusterMetadataHolder.Snapshot s = snapshot(NodeState.valueOf(state));
    String id = UploadHolder.newId("t2", RANDOM);
    assertThatThrownBy(() -> UploadHolder.require(s, BUCKET, "k", id))
        .isInstanceOf(ServiceUnavailableException.class).hasMessageContaining("t2");
  }
}
