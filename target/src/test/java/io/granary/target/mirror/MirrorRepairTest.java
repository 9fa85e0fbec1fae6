package io.granary.target.mirror;

import static io.granary.target.mirror.MirrorFixture.content;
import static org.assertj.core.api.Assertions.assertThat;

import io.granary.clustermap.acl.CannedAcl;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.storage.MirrorCopies;
import io.granary.target.storage.Mountpath;
import io.granary.target.storage.MountpathState;
import io.granary.target.storage.ObjectLocation;
import io.granary.target.storage.Relocation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link MirrorRepair} over a real store on three temp-dir mountpaths, run synchronously. */
class MirrorRepairTest {
  @TempDir
  Path tmp;
  private MirrorFixture f;
  private MirrorStats stats;
  private MirrorRepair repair;

  @BeforeEach
  void open() throws IOException {
    f = new MirrorFixture(tmp, 3, 2);
    stats = new MirrorStats();
    repair = new MirrorRepair("t1", new MirrorCopies(f.store), f::current, stats);
  }

  @AfterEach
  void close() throws IOException {
    f.close();
  }

  private void assertMirrored(String name, ObjectMeta version, int copies) throws IOException {
    ObjectLocation loc = f.locate(name);
    List<Mountpath> holders = f.holders(name);
    assertThat(holders).hasSize(copies).doesNotHaveDuplicates();
    assertThat(holders.get(0)).isSameAs(loc.mountpath());
    ObjectMeta main = f.metaOn(loc.mountpath(), name);
    assertThat(main.sameVersion(version)).isTrue();
    assertThat(main.copies()).containsExactlyInAnyOrderElementsOf(holders.subList(1, copies).stream()
        .map(Mountpath::id).toList());
    assertThat(main.isMirrorCopyOn(loc.mountpath().id())).isFalse();
    for (Mountpath mp : holders.subList(1, copies)) {
      ObjectMeta copy = f.metaOn(mp, name);
      assertThat(copy.isMirrorCopyOn(mp.id())).as("a copy's record lists its own mountpath").isTrue();
      assertThat(copy.sameVersion(version)).isTrue();
      assertThat(Files.readAllBytes(loc.on(mp).file())).isEqualTo(Files.readAllBytes(loc.file()));
    }
  }

  @Test
  void ensure_afterPut_copiesToTheNextHrwMountpath_andRecordsItInBothRecords() throws IOException {
    byte[] body = content(300_000, 1);
    ObjectMeta v = f.put("a", body);

    MirrorRepair.Result r = repair.ensure(f.bucket, "a");

    assertThat(r.outcome()).isEqualTo(MirrorRepair.Outcome.REPAIRED);
    assertThat(r.made()).isEqualTo(1);
    assertMirrored("a", v, 2);
    ObjectLocation loc = f.locate("a");
    assertThat(f.holders("a").get(1)).isSameAs(f.store.mountpathSet().mirrorPlaces(loc.digest(), 2).get(0));
    assertThat(stats.made()).isEqualTo(1);
    assertThat(f.read("a")).isEqualTo(body);
    for (Mountpath mp : f.store.mountpaths()) {
      try (var work = Files.list(mp.workDir())) {
        assertThat(work.count()).as("no work file left on %s", mp).isZero();
      }
    }
  }

  @Test
  void ensure_emptyObject_andSecondRun_changesNothing() throws IOException {
    ObjectMeta v = f.put("empty", new byte[0]);
    repair.ensure(f.bucket, "empty");

    MirrorRepair.Result again = repair.ensure(f.bucket, "empty");

    assertThat(again.outcome()).isEqualTo(MirrorRepair.Outcome.IN_PLACE);
    assertMirrored("empty", v, 2);
    assertThat(stats.made()).isEqualTo(1);
  }

  @Test
  void ensure_threeCopies_onThreeDistinctMountpaths() throws IOException {
    f.setCopies(3);
    ObjectMeta v = f.put("three", content(4096, 2));

    repair.ensure(f.bucket, "three");

    assertMirrored("three", v, 3);
  }

  @Test
  void ensure_mainFileLost_restoresTheMainCopyFromAMirrorCopy() throws IOException {
    byte[] body = content(70_000, 3);
    ObjectMeta v = f.put("lost", body);
    repair.ensure(f.bucket, "lost");
    Files.delete(f.locate("lost").file());

    MirrorRepair.Result r = repair.ensure(f.bucket, "lost");

    assertThat(r.restored()).isTrue();
    assertMirrored("lost", v, 2);
    assertThat(Files.readAllBytes(f.locate("lost").file())).isEqualTo(body);
    assertThat(stats.restoredMain()).isEqualTo(1);
  }

  @Test
  void ensure_afterTheMainMountpathIsLost_restoresMainAndCopyCountOnTheOthers() throws IOException {
    byte[] body = content(10_000, 4);
    ObjectMeta v = f.put("moved", body);
    repair.ensure(f.bucket, "moved");
    Mountpath main = f.locate("moved").mountpath();

    f.setState(main, MountpathState.DISABLED);
    assertThat(f.read("moved")).as("read from the mirror copy meanwhile").isEqualTo(body);
    MirrorRepair.Result r = repair.ensure(f.bucket, "moved");

    assertThat(r.outcome()).isEqualTo(MirrorRepair.Outcome.REPAIRED);
    assertThat(f.locate("moved").mountpath()).isNotSameAs(main);
    assertMirrored("moved", v, 2);
    assertThat(f.read("moved")).isEqualTo(body);
  }

  @Test
  void ensure_afterACopyMountpathIsLost_makesTheCopyAgainElsewhere() throws IOException {
    ObjectMeta v = f.put("copy-lost", content(5000, 5));
    repair.ensure(f.bucket, "copy-lost");
    Mountpath copyOn = f.holders("copy-lost").get(1);

    f.setState(copyOn, MountpathState.DISABLED);
    ObjectLocation loc = f.locate("copy-lost");
    assertThat(MirrorRepair.needsRepair(loc, loc.mountpath(), f.metaOn(loc.mountpath(), "copy-lost"),
        f.store.mountpathSet(), 2)).isTrue();
    repair.ensure(f.bucket, "copy-lost");

    assertMirrored("copy-lost", v, 2);
    assertThat(f.holders("copy-lost")).doesNotContain(copyOn);
  }

  @Test
  void ensure_fewerCopiesAsked_dropsTheExtraCopies() throws IOException {
    f.setCopies(3);
    ObjectMeta v = f.put("fewer", content(1000, 6));
    repair.ensure(f.bucket, "fewer");
    f.setCopies(1);

    MirrorRepair.Result r = repair.ensure(f.bucket, "fewer");

    assertThat(r.dropped()).isEqualTo(2);
    assertThat(f.holders("fewer")).containsExactly(f.locate("fewer").mountpath());
    assertThat(f.metaOn(f.locate("fewer").mountpath(), "fewer").copies()).isEmpty();
    assertThat(f.metaOn(f.locate("fewer").mountpath(), "fewer").sameVersion(v)).isTrue();
  }

  @Test
  void ensure_afterACrashLeftAnUnrecordedCopyFile_replacesIt_andNothingServedIt() throws IOException {
    byte[] body = content(3000, 15);
    ObjectMeta v = f.put("crash", body);
    ObjectLocation loc = f.locate("crash");
    Mountpath place = f.store.mountpathSet().mirrorPlaces(loc.digest(), 2).get(0);
    // As a crash between a copy's rename and its record leaves it: a file, no record
    Files.createDirectories(loc.on(place).file().getParent());
    Files.write(loc.on(place).file(), content(10, 16));
    Files.delete(loc.file());
    assertThat(f.holders("crash")).as("an unrecorded file is no copy").isEmpty();

    Files.write(loc.file(), body); // the main copy is back: the repair copies it over the leftover
    repair.ensure(f.bucket, "crash");

    assertMirrored("crash", v, 2);
    assertThat(Files.readAllBytes(loc.on(place).file())).isEqualTo(body);
  }

  @Test
  void addCopy_ofAVersionOverwrittenMeanwhile_recordsNoStaleCopy() throws IOException {
    ObjectMeta old = f.put("race", content(2000, 7));
    byte[] newer = content(3000, 8);
    f.put("race", newer);
    ObjectLocation loc = f.locate("race");
    Mountpath to = f.store.mountpathSet().mirrorPlaces(loc.digest(), 2).get(0);

    boolean made = new MirrorCopies(f.store).addCopy(loc, to, old);

    assertThat(made).isFalse();
    assertThat(f.metaOn(to, "race")).isNull();
    assertThat(Files.exists(loc.on(to).file())).isFalse();
    try (var work = Files.list(to.workDir())) {
      assertThat(work.count()).isZero();
    }
  }

  @Test
  void overwrite_removesTheOldCopies_andTheNextRepairCopiesTheNewVersion() throws IOException {
    f.put("over", content(2000, 9));
    repair.ensure(f.bucket, "over");
    Mountpath copyOn = f.holders("over").get(1);

    byte[] newer = content(2500, 10);
    ObjectMeta v2 = f.put("over", newer);

    assertThat(f.metaOn(copyOn, "over")).as("the commit removed the old copy").isNull();
    repair.ensure(f.bucket, "over");
    assertMirrored("over", v2, 2);
    assertThat(f.read("over")).isEqualTo(newer);
  }

  @Test
  void delete_removesEveryCopy() throws IOException {
    f.setCopies(3);
    f.put("gone", content(100, 11));
    repair.ensure(f.bucket, "gone");

    assertThat(f.store.delete(f.bucket, "gone")).isTrue();

    ObjectLocation loc = f.locate("gone");
    for (Mountpath mp : f.store.mountpaths()) {
      assertThat(mp.meta().get(loc.key())).isNull();
      assertThat(Files.exists(loc.on(mp).file())).isFalse();
    }
    assertThat(repair.ensure(f.bucket, "gone").outcome()).isEqualTo(MirrorRepair.Outcome.GONE);
  }

  @Test
  void evict_removesEveryCopy() throws IOException {
    ObjectMeta v = f.put("cached", content(100, 12));
    repair.ensure(f.bucket, "cached");
    ObjectLocation loc = f.locate("cached");

    long freed = f.store.evict(loc, v.mtime(), atime -> true);

    assertThat(freed).isEqualTo(100);
    for (Mountpath mp : f.store.mountpaths()) {
      assertThat(mp.meta().get(loc.key())).isNull();
      assertThat(Files.exists(loc.on(mp).file())).isFalse();
    }
  }

  @Test
  void aclChange_reachesTheCopies_soAPromotedCopyKeepsIt() throws IOException {
    f.put("acl", content(100, 14));
    repair.ensure(f.bucket, "acl");
    Mountpath main = f.locate("acl").mountpath();

    new Relocation(f.store, digest -> true).changeAcl(f.bucket, "acl", CannedAcl.PUBLIC_READ); // owned here
    f.setState(main, MountpathState.DISABLED);
    repair.ensure(f.bucket, "acl");

    ObjectLocation loc = f.locate("acl");
    assertThat(f.metaOn(loc.mountpath(), "acl").acl()).isEqualTo(CannedAcl.PUBLIC_READ);
    assertThat(f.metaOn(f.holders("acl").get(1), "acl").acl()).isEqualTo(CannedAcl.PUBLIC_READ);
  }

  @Test
  void needsRepair_aCopyInPlace_no_aCopyWhoseMainIsGone_yes() throws IOException {
    ObjectMeta v = f.put("n", content(100, 13));
    repair.ensure(f.bucket, "n");
    ObjectLocation loc = f.locate("n");
    Mountpath copyOn = f.holders("n").get(1);
    var set = f.store.mountpathSet();

    assertThat(MirrorRepair.needsRepair(loc, loc.mountpath(), f.metaOn(loc.mountpath(), "n"), set, 2)).isFalse();
    assertThat(MirrorRepair.needsRepair(loc, copyOn, f.metaOn(copyOn, "n"), set, 2)).isFalse();
    assertThat(MirrorRepair.needsRepair(loc, copyOn, f.metaOn(copyOn, "n"), set, 1)).isTrue();
    loc.mountpath().meta().delete(loc.key());
    assertThat(MirrorRepair.needsRepair(loc, copyOn, f.metaOn(copyOn, "n"), set, 2)).isTrue();
    assertThat(v.copies()).isEmpty();
  }
}
