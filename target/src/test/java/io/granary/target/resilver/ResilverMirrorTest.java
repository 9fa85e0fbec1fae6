package io.granary.target.resilver;

import static io.granary.target.resilver.ResilverFixture.BUCKET;
import static io.granary.target.resilver.ResilverFixture.content;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.Protection;
import io.granary.common.membership.ClusterMetadata;
import io.granary.common.mountpath.MountpathsReport;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.mirror.Mirroring;
import io.granary.target.storage.Mountpath;
import io.granary.target.storage.ObjectLocation;
import io.granary.target.storage.ObjectStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Resilver with mirroring assembled as {@code TargetNode} does it: mirror copies are never moved or removed as
 * strays, and a lost or leaving mountpath's main copies and copies are restored on the others.
 */
class ResilverMirrorTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final BucketProps MIRRORED = BUCKET.withProtection(new Protection(2, 0, 0,
      Protection.DEFAULT_EC_OBJ_SIZE_LIMIT, false));

  @TempDir
  Path tmp;
  private ResilverFixture f;
  private Mirroring mirroring;

  @BeforeEach
  void open() throws IOException {
    f = new ResilverFixture(tmp, "mp1", "mp2", "mp3");
    var s = f.cluster.require();
    f.cluster.apply(new ClusterMetadata(s.map(), s.buckets().with(MIRRORED)));
    mirroring = new Mirroring(ResilverFixture.SELF, f.store, b -> f.cluster.require().buckets().buckets()
        .get(b.bucket().key()), 2, 1024);
    f.resilver.setMirroredObjects(mirroring);
  }

  @AfterEach
  void close() throws IOException {
    mirroring.close();
    f.close();
  }

  private List<String> putMirrored(int n) throws IOException {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String name = "m-" + i;
      f.put(name);
      names.add(name);
    }
    await().atMost(WAIT).until(() -> names.stream().allMatch(this::mirrored));
    return names;
  }

  /** Two intact copies on distinct served mountpaths, the main one on the HRW mountpath listing the other. */
  private boolean mirrored(String name) {
    try {
      ObjectLocation loc = f.store.locate(MIRRORED, name);
      ObjectMeta main = loc.mountpath().meta().get(loc.key());
      if (main == null || main.copies().size() != 1 || main.isMirrorCopyOn(loc.mountpath().id())) {
        return false;
      }
      List<Mountpath> holders = f.holders(name);
      if (holders.size() != 2) {
        return false;
      }
      Mountpath copyOn = holders.get(0) == loc.mountpath() ? holders.get(1) : holders.get(0);
      ObjectMeta copy = copyOn.meta().get(loc.key());
      return main.copies().equals(List.of(copyOn.id())) && copy.isMirrorCopyOn(copyOn.id())
          && Files.size(loc.on(copyOn).file()) == main.size() && Files.size(loc.file()) == main.size();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void awaitResilverDone() {
    await().atMost(WAIT).until(() -> MountpathsReport.Resilver.DONE.equals(f.resilverState().state()));
  }

  @Test
  void mirrorCopies_areNotStrays_aResilverLeavesThemWhereTheyAre() throws IOException {
    List<String> names = putMirrored(40);
    long before = f.store.mountpaths().stream().mapToLong(mp -> mp.usage().objectCount()).sum();

    f.admin.attach(f.path("mp4").toString());
    awaitResilverDone();

    await().atMost(WAIT).until(() -> names.stream().allMatch(this::mirrored) && mirroring.queueDepth() == 0);
    assertThat(f.store.mountpaths().stream().mapToLong(mp -> mp.usage().objectCount()).sum()).isEqualTo(before);
    for (String n : names) {
      assertThat(f.read(n)).isEqualTo(content(n));
    }
  }

  @Test
  void aLostMountpath_itsObjectsReadFromCopies_thenMainCopiesAndCountRestored() throws IOException {
    List<String> names = putMirrored(60);
    Mountpath lost = f.mountpath("mp2");
    long mainsThere = names.stream().filter(n -> f.store.locate(MIRRORED, n).mountpath() == lost).count();
    assertThat(mainsThere).isPositive();
    long affected = 0;
    for (String n : names) {
      affected += f.holders(n).contains(lost) ? 1 : 0;
    }
    long madeBefore = mirroring.stats().made();

    f.admin.disable(lost.root().toString());
    for (String n : names) {
      assertThat(f.read(n)).as(n).isEqualTo(content(n)); // from a copy where the main one was lost
    }
    awaitResilverDone();

    await().atMost(WAIT).until(() -> names.stream().allMatch(this::mirrored));
    // a lost main copy's new HRW mountpath is its first copy place: that copy becomes the main one, no byte copied
    assertThat(mirroring.stats().restoredMain()).isZero();
    assertThat(mirroring.stats().made() - madeBefore).as("one new copy per object that lost one").isEqualTo(affected);
    for (String n : names) {
      assertThat(f.holders(n)).doesNotContain(lost);
      assertThat(f.read(n)).as(n).isEqualTo(content(n));
    }
  }

  @Test
  void aDetachedMountpath_drainsMainsAndCopies_andEveryObjectKeepsTwoCopies() throws IOException {
    List<String> names = putMirrored(60);
    Path leaving = f.path("mp3");

    f.admin.detach(leaving.toString());
    awaitResilverDone();

    assertThat(f.store.mountpathSet().entry(leaving)).isEmpty();
    await().atMost(WAIT).until(() -> names.stream().allMatch(this::mirrored));
    try (var files = Files.walk(leaving.resolve("objects"))) {
      assertThat(files.filter(Files::isRegularFile).count()).isZero();
    }
    for (String n : names) {
      assertThat(f.read(n)).as(n).isEqualTo(content(n));
    }
    assertThat(ObjectStore.bucketPrefix(MIRRORED)).isNotEmpty();
  }
}
