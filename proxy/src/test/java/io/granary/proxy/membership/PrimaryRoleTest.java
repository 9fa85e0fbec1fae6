package io.granary.proxy.membership;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.Node;
import io.granary.clustermap.NodeRole;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.bucket.BucketMetadata;
import io.granary.common.membership.ClusterMetadata;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.membership.MetadataFiles;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where a proxy sends metadata changes, as its role moves under Lease election. */
class PrimaryRoleTest {
  private static final Node P1 = new Node("p1", NodeRole.PROXY, "http://10.0.0.1:51080", NodeState.ACTIVE, 1);
  private static final Node P2 = new Node("p2", NodeRole.PROXY, "http://10.0.0.2:51080", NodeState.ACTIVE, 1);

  @TempDir
  Path dir;

  @Test
  void fixedRoles_areAsConfigured() throws Exception {
    ClusterMetadataHolder holder = new ClusterMetadataHolder("p2", new MetadataFiles(List.of(dir)));
    assertThat(PrimaryRole.follower(holder, "http://primary:51080").primaryUrl()).isEqualTo("http://primary:51080");
    PrimaryRole primary = PrimaryRole.fixedPrimary(holder, new PrimaryRole.Term(null, null));
    assertThat(primary.primary()).isTrue();
    assertThat(primary.primaryUrl()).isNull();
  }

  @Test
  void elected_followsTheNewestOfItsMapAndTheAnnouncement_neverItsOwnOldTerm() throws Exception {
    ClusterMetadataHolder holder = new ClusterMetadataHolder("p1", new MetadataFiles(List.of(dir)));
    PrimaryRole role = PrimaryRole.elected(holder);
    assertThat(role.primaryUrl()).as("nothing known yet").isNull();

    // p1 was the primary of epoch 1 and was deposed: its own map names itself.
    ClusterMap mine = ClusterMap.bootstrap("u", P1, Instant.EPOCH).withPrimary(P1, 1);
    holder.apply(new ClusterMetadata(mine, BucketMetadata.empty("u")));
    assertThat(role.primaryUrl()).isNull();

    role.announced(P2.url(), 2);
    assertThat(role.primaryUrl()).as("the ConfigMap names the primary of epoch 2").isEqualTo(P2.url());
    role.announced(P1.url(), 1);
    assertThat(role.primaryUrl()).as("an older announcement changes nothing").isEqualTo(P2.url());

    ClusterMap theirs = mine.withPrimary(P2, 2);
    holder.apply(new ClusterMetadata(theirs, BucketMetadata.empty("u")));
    assertThat(role.primaryUrl()).as("the map pushed by the primary of epoch 2").isEqualTo(P2.url());

    PrimaryRole.Term term = new PrimaryRole.Term(null, null);
    role.promote(term);
    assertThat(role.primary()).isTrue();
    assertThat(role.primaryUrl()).isNull();
    assertThat(role.demote()).isSameAs(term);
    assertThat(role.primary()).isFalse();
  }
}
