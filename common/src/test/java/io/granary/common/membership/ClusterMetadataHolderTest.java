package io.granary.common.membership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.Node;
import io.granary.clustermap.NodeRole;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.BucketMetadata;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.common.error.BucketNotFoundException;
import io.granary.common.error.ConflictException;
import io.granary.common.error.ServiceUnavailableException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClusterMetadataHolderTest {
  private static final String UUID = "c0ffee00-0000-4000-8000-000000000001";
  private static final Node PRIMARY = new Node("p1", NodeRole.PROXY, "http://127.0.0.1:51080", NodeState.ACTIVE, 1);
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  @TempDir
  Path tmp;
  private Path dirA;
  private Path dirB;

  @BeforeEach
  void dirs() {
    dirA = tmp.resolve("mp1");
    dirB = tmp.resolve("mp2");
  }

  private MetadataFiles files() {
    return new MetadataFiles(List.of(dirA, dirB));
  }

  private ClusterMetadataHolder holder() throws IOException {
    return new ClusterMetadataHolder("t1", files());
  }

  /** Version 1 map and bucket metadata of cluster {@code uuid}. */
  private static ClusterMetadata v1(String uuid) {
    return new ClusterMetadata(ClusterMap.bootstrap(uuid, PRIMARY, T0), BucketMetadata.empty(uuid));
  }

  private static ClusterMap withTarget(ClusterMap m, String id) {
    return m.withNode(new Node(id, NodeRole.TARGET, "http://127.0.0.1:6" + id.length(), NodeState.ACTIVE, 1));
  }

  private static BucketMetadata withBucket(BucketMetadata b, String name) {
    return b.with(new BucketProps(Bucket.local(name), "id-" + name, ChecksumType.XXHASH64, T0));
  }

  @Test
  void newHolder_withoutFiles_hasNoSnapshot() throws IOException {
    ClusterMetadataHolder h = holder();
    assertThat(h.snapshot()).isEmpty();
    assertThatThrownBy(h::require).isInstanceOf(ServiceUnavailableException.class);
    assertThatThrownBy(() -> h.requireBucket(Bucket.local("bkt"))).isInstanceOf(BucketNotFoundException.class);
  }

  @Test
  void apply_first_persistsToEveryDirAndPublishes() throws IOException {
    ClusterMetadataHolder h = holder();
    ClusterMetadata md = v1(UUID);

    assertThat(h.apply(md)).isTrue();

    assertThat(h.require().metadata()).isEqualTo(md);
    assertThat(h.require().placement()).isNotNull();
    assertThat(dirA.resolve(MetadataFiles.FILE)).exists();
    assertThat(dirB.resolve(MetadataFiles.FILE)).exists();
    assertThat(files().readNewest()).contains(md);
    assertThatThrownBy(() -> h.requireBucket(Bucket.local("nope"))).isInstanceOf(BucketNotFoundException.class);
  }

  @Test
  void apply_newerMapAndBuckets_persistsAndPublishes() throws IOException {
    ClusterMetadataHolder h = holder();
    ClusterMetadata md = v1(UUID);
    h.apply(md);
    ClusterMetadata next = new ClusterMetadata(withTarget(md.map(), "t1"), withBucket(md.buckets(), "bkt"));

    assertThat(h.apply(next)).isTrue();

    assertThat(h.require().map().version()).isEqualTo(2);
    assertThat(h.require().buckets().version()).isEqualTo(2);
    assertThat(h.requireBucket(Bucket.local("bkt")).id()).isEqualTo("id-bkt");
    assertThat(h.require().placement().owner(42).orElseThrow().id()).isEqualTo("t1");
    assertThat(new ClusterMetadataHolder("t1", new MetadataFiles(List.of(dirA))).require().metadata()).isEqualTo(next);
    assertThat(new ClusterMetadataHolder("t1", new MetadataFiles(List.of(dirB))).require().metadata()).isEqualTo(next);
  }

  @Test
  void apply_eachPartTakenOnlyIfNewer() throws IOException {
    ClusterMetadataHolder h = holder();
    ClusterMetadata md = v1(UUID);
    ClusterMap map2 = withTarget(md.map(), "t1");
    BucketMetadata bmd2 = withBucket(md.buckets(), "bkt");
    h.apply(new ClusterMetadata(map2, md.buckets()));

    // Incoming: older map, newer buckets -> keeps map v2, takes buckets v2.
    assertThat(h.apply(new ClusterMetadata(md.map(), bmd2))).isTrue();
    assertThat(h.require().map()).isEqualTo(map2);
    assertThat(h.require().buckets()).isEqualTo(bmd2);
    assertThat(files().readNewest().orElseThrow()).isEqualTo(new ClusterMetadata(map2, bmd2));
  }

  @Test
  void apply_bucketsOnly_keepsPlacementOfUnchangedMap() throws IOException {
    ClusterMetadataHolder h = holder();
    ClusterMetadata md = new ClusterMetadata(withTarget(v1(UUID).map(), "t1"), BucketMetadata.empty(UUID));
    h.apply(md);
    var placement = h.require().placement();

    h.apply(new ClusterMetadata(md.map(), withBucket(md.buckets(), "bkt")));

    assertThat(h.require().placement()).isSameAs(placement);
  }

  @Test
  void apply_olderOrSameVersions_isIgnored() throws IOException {
    ClusterMetadataHolder h = holder();
    ClusterMetadata md = v1(UUID);
    ClusterMetadata current = new ClusterMetadata(withTarget(md.map(), "t1"), withBucket(md.buckets(), "bkt"));
    h.apply(current);
    byte[] before = Files.readAllBytes(dirA.resolve(MetadataFiles.FILE));
    List<String> calls = new ArrayList<>();
    h.onChange((o, n) -> calls.add("changed"));

    assertThat(h.apply(md)).isFalse();
    assertThat(h.apply(current)).isFalse();
    // Same version numbers with different content are not "newer" either.
    assertThat(h.apply(new ClusterMetadata(withTarget(md.map(), "t9"), withBucket(md.buckets(), "other")))).isFalse();

    assertThat(h.require().metadata()).isEqualTo(current);
    assertThat(Files.readAllBytes(dirA.resolve(MetadataFiles.FILE))).isEqualTo(before);
    assertThat(calls).isEmpty();
  }

  @Test
  void apply_foreignCluster_isClusterMismatchAndChangesNothing() throws IOException {
    ClusterMetadataHolder h = holder();
    ClusterMetadata mine = v1(UUID);
    h.apply(mine);
    ClusterMetadata foreign = new ClusterMetadata(withTarget(withTarget(v1("other-uuid").map(), "t1"), "t22"),
        BucketMetadata.empty("other-uuid"));

    assertThatThrownBy(() -> h.apply(foreign))
        .isInstanceOfSatisfying(ConflictException.class, e -> {
          assertThat(e.code()).isEqualTo(ConflictException.CLUSTER_MISMATCH);
          assertThat(e.status().code()).isEqualTo(409);
          assertThat(e.getMessage()).contains(UUID, "other-uuid");
        });
    assertThat(h.require().metadata()).isEqualTo(mine);
    assertThat(files().readNewest()).contains(mine);
  }

  @Test
  void newHolder_overSameDirs_loadsNewestCopy() throws IOException {
    ClusterMetadata md = v1(UUID);
    ClusterMetadata newer = new ClusterMetadata(withTarget(md.map(), "t1"), md.buckets());
    ClusterMetadata newerBuckets = new ClusterMetadata(newer.map(), withBucket(md.buckets(), "bkt"));
    new MetadataFiles(List.of(dirA)).write(newer);
    new MetadataFiles(List.of(dirB)).write(md);
    assertThat(holder().require().metadata()).isEqualTo(newer);

    // Same map version: the higher bucket version wins.
    new MetadataFiles(List.of(dirB)).write(newerBuckets);
    assertThat(holder().require().metadata()).isEqualTo(newerBuckets);
  }

  @Test
  void newHolder_afterApply_seesLatest() throws IOException {
    ClusterMetadataHolder h = holder();
    ClusterMetadata md = v1(UUID);
    h.apply(md);
    ClusterMetadata next = new ClusterMetadata(withTarget(md.map(), "t1"), withBucket(md.buckets(), "bkt"));
    h.apply(next);

    ClusterMetadataHolder reopened = holder();
    assertThat(reopened.require().metadata()).isEqualTo(next);
    assertThat(reopened.apply(md)).as("older versions still refused after restart").isFalse();
  }

  @Test
  void newHolder_oneCopyCorrupt_usesTheOther() throws IOException {
    ClusterMetadata md = new ClusterMetadata(withTarget(v1(UUID).map(), "t1"), BucketMetadata.empty(UUID));
    files().write(md);
    Files.writeString(dirA.resolve(MetadataFiles.FILE), "{\"map\": {\"version\": 7, \"uu", StandardCharsets.UTF_8);

    assertThat(holder().require().metadata()).isEqualTo(md);

    Files.write(dirA.resolve(MetadataFiles.FILE), new byte[0]);
    assertThat(holder().require().metadata()).isEqualTo(md);
  }

  @Test
  void newHolder_oneCopyMissing_usesTheOther() throws IOException {
    ClusterMetadata md = v1(UUID);
    new MetadataFiles(List.of(dirB)).write(md);
    assertThat(holder().require().metadata()).isEqualTo(md);
  }

  @Test
  void newHolder_everyCopyCorrupt_failsToLoad() throws IOException {
    files().write(v1(UUID));
    Files.writeString(dirA.resolve(MetadataFiles.FILE), "garbage");
    Files.writeString(dirB.resolve(MetadataFiles.FILE), "{}");

    assertThatThrownBy(this::holder).isInstanceOf(IOException.class).hasMessageContaining("no readable cluster metadata");
  }

  @Test
  void listeners_receiveOldAndNewSnapshots() throws IOException {
    ClusterMetadataHolder h = holder();
    List<ClusterMetadataHolder.Snapshot[]> calls = new ArrayList<>();
    h.onChange((o, n) -> calls.add(new ClusterMetadataHolder.Snapshot[] {o, n}));
    h.onChange((o, n) -> {
      throw new IllegalStateException("a failing listener must not stop the others");
    });
    List<Long> versions = new ArrayList<>();
    h.onChange((o, n) -> versions.add(n.map().version()));
    ClusterMetadata md = v1(UUID);
    ClusterMetadata next = new ClusterMetadata(withTarget(md.map(), "t1"), md.buckets());

    h.apply(md);
    ClusterMetadataHolder.Snapshot first = h.require();
    h.apply(next);
    h.apply(md); // ignored: no call

    assertThat(calls).hasSize(2);
    assertThat(calls.get(0)[0]).isNull();
    assertThat(calls.get(0)[1]).isSameAs(first);
    assertThat(calls.get(1)[0]).isSameAs(first);
    assertThat(calls.get(1)[1].metadata()).isEqualTo(next);
    assertThat(calls.get(1)[1]).isSameAs(h.require());
    assertThat(versions).containsExactly(1L, 2L);
  }

  @Test
  void whenMapAtLeast_completesWithTheFirstMapThatNew_atOnceWhenHeld() throws IOException {
    ClusterMetadataHolder h = holder();
    java.util.concurrent.CompletableFuture<ClusterMetadataHolder.Snapshot> two = h.whenMapAtLeast(2);
    java.util.concurrent.CompletableFuture<ClusterMetadataHolder.Snapshot> five = h.whenMapAtLeast(5);
    ClusterMetadata md = v1(UUID);
    h.apply(md);
    assertThat(two).as("a holder without map waits").isNotDone();
    h.apply(new ClusterMetadata(withTarget(md.map(), "t1"), md.buckets()));
    assertThat(two).isCompleted();
    assertThat(two.join().map().version()).isEqualTo(2);
    assertThat(five).isNotDone();
    assertThat(h.whenMapAtLeast(1)).as("held already").isCompleted();
    five.cancel(false); // a waiter that gives up is forgotten
  }

  @Test
  void whenMapAtLeast_neverWaitsForAnApplyInProgress() throws Exception {
    ClusterMetadataHolder h = holder();
    h.apply(v1(UUID));
    synchronized (h) { // as apply() holds it while it syncs the metadata files and runs listeners
      var held = java.util.concurrent.CompletableFuture.supplyAsync(() -> h.whenMapAtLeast(1))
          .get(10, java.util.concurrent.TimeUnit.SECONDS);
      var newer = java.util.concurrent.CompletableFuture.supplyAsync(() -> h.whenMapAtLeast(3))
          .get(10, java.util.concurrent.TimeUnit.SECONDS);
      assertThat(held).isCompleted();
      assertThat(newer).isNotDone();
    }
  }

  @Test
  void listener_seesNewSnapshotAlreadyPublished() throws IOException {
    ClusterMetadataHolder h = holder();
    List<Long> seen = new ArrayList<>();
    h.onChange((o, n) -> seen.add(h.require().map().version()));
    h.apply(v1(UUID));
    assertThat(seen).containsExactly(1L);
  }

  @Test
  void apply_unwritableDir_failsAndDoesNotPublish() throws IOException {
    ClusterMetadataHolder h = holder();
    h.apply(v1(UUID));
    // Make the metadata file's temp path a directory so the write fails.
    Files.createDirectories(dirB.resolve(MetadataFiles.FILE + ".tmp"));
    ClusterMetadata next = new ClusterMetadata(withTarget(v1(UUID).map(), "t1"), BucketMetadata.empty(UUID));

    assertThatThrownBy(() -> h.apply(next)).isInstanceOf(java.io.UncheckedIOException.class);
    assertThat(h.require().map().version()).isEqualTo(1);
  }
}
