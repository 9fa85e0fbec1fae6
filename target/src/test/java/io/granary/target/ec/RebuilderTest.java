package io.granary.target.ec;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.clustermap.Node;
import io.granary.clustermap.NodeRole;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.target.meta.ObjectMeta;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which slices of a version a rebuild reads ({@link Rebuilder#usable}). */
class RebuilderTest {
  private static final ObjectMeta META = new ObjectMeta(10, ChecksumType.XXHASH64, "0123456789abcdef", 5);

  private static Rebuilder.Source on(String node, int index) {
    SliceRecord r = new SliceRecord("ais", "bkt", "b1d", "o", index, 4, 2, 1024, 10, SliceRecord.versionOf(META), 5,
        SliceRecord.encodeMeta(META), index == SliceRecord.REPLICA ? 10 : 3, "00", 1);
    return node == null ? new Rebuilder.Source(null, r, Path.of("/x"))
        : new Rebuilder.Source(new Node(node, NodeRole.TARGET, "http://127.0.0.1:1", NodeState.ACTIVE, 1), r, null);
  }

  @Test
  void dDistinctSlices_oneEach_dataFirst_localPreferred() {
    List<Rebuilder.Source> got = Rebuilder.usable(List.of(on("t5", 5), on("t2", 1), on("t4", 3), on("t3", 2),
        on(null, 1), on("t6", 4)), 4);
    assertThat(got).extracting(s -> s.record().index()).containsExactly(1, 2, 3, 4, 5);
    assertThat(got.get(0).node()).as("the local copy of slice 1").isNull();
  }

  @Test
  void fewerThanD_distinct_isNothing() {
    assertThat(Rebuilder.usable(List.of(on("t2", 1), on("t3", 1), on("t4", 2), on("t5", 3)), 4)).isEmpty();
  }

  @Test
  void aReplica_isEnough_andOthersAreFallbacks() {
    List<Rebuilder.Source> got = Rebuilder.usable(List.of(on("t2", SliceRecord.REPLICA), on("t3",
        SliceRecord.REPLICA)), 4);
    assertThat(got).hasSize(2).allMatch(s -> s.record().isReplica());
  }
}
