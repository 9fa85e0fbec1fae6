package io.granary.target.storage;

import static io.granary.target.storage.MountpathFixture.BUCKET;
import static io.granary.target.storage.MountpathFixture.at;
import static io.granary.target.storage.MountpathFixture.data;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.granary.common.error.ServiceUnavailableException;
import io.granary.common.listing.ObjectEntry;
import io.granary.target.meta.CommitIntent;
import io.granary.target.meta.ObjectMeta;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The store while its mountpaths change: lookups, commits, deletes and listings across every readable mountpath. */
class ObjectStoreMountpathsTest {
  @TempDir
  Path tmp;
  private MountpathFixture f;

  @BeforeEach
  void open() throws IOException {
    f = new MountpathFixture(tmp, "mp1", "mp2");
  }

  @AfterEach
  void close() throws IOException {
    f.close();
  }

  /** Puts {@code n} objects and returns their names. */
  private List<String> putMany(int n) throws IOException {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String name = "obj-" + i;
      f.put(name, data("content of " + name));
      names.add(name);
    }
    return names;
  }

  /** Names whose HRW mountpath is {@code mp} now. */
  private List<String> placedOn(List<String> names, Mountpath mp) {
    return names.stream().filter(n -> f.store.locate(BUCKET, n).mountpath() == mp).toList();
  }

  @Test
  void stat_missOnHrwMountpath_findsTheCopyOnAnother() throws IOException {
    List<String> names = putMany(60);
    Mountpath mp3 = f.attach("mp3");

    List<String> moved = placedOn(names, mp3);
    assertThat(moved).as("about a third of the objects now belong on the new mountpath").hasSizeBetween(8, 35);
    for (String n : moved) {
      assertThat(f.holds(mp3, n)).isFalse();
      assertThat(f.store.stat(BUCKET, n)).as(n).isNotNull();
      assertThat(f.read(n)).as(n).isEqualTo(data("content of " + n));
    }
    assertThat(f.store.stat(BUCKET, "never")).isNull();
    assertThat(f.store.open(BUCKET, "never")).isNull();
  }

  @Test
  void commit_onHrwMountpath_removesTheOlderCopyElsewhere() throws IOException {
    List<String> names = putMany(30);
    Mountpath mp3 = f.attach("mp3");
    String name = placedOn(names, mp3).get(0);
    Mountpath old = f.store.mountpaths().stream().filter(mp -> mp != mp3).filter(mp -> {
      try {
        return f.holds(mp, name);
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }).findFirst().orElseThrow();
    long oldCount = old.usage().objectCount();

    ObjectMeta fresh = f.put(name, data("second version"));

    assertThat(f.holds(mp3, name)).isTrue();
    assertThat(f.holds(old, name)).as("the older copy and its file are gone").isFalse();
    assertThat(old.usage().objectCount()).isEqualTo(oldCount - 1);
    assertThat(f.store.stat(BUCKET, name)).isEqualTo(fresh);
    assertThat(f.read(name)).isEqualTo(data("second version"));
  }

  @Test
  void delete_removesEveryCopy() throws IOException {
    ObjectMeta meta = f.put("x", data("abc"));
    Mountpath hrw = f.store.locate(BUCKET, "x").mountpath();
    Mountpath other = f.store.mountpaths().stream().filter(mp -> mp != hrw).findFirst().orElseThrow();
    f.plant(other, "x", data("abc"), at(meta, meta.mtime() - 1000, "older"));

    assertThat(f.store.delete(BUCKET, "x")).isTrue();

    assertThat(f.holds(hrw, "x")).isFalse();
    assertThat(f.holds(other, "x")).isFalse();
    assertThat(f.store.stat(BUCKET, "x")).isNull();
    assertThat(f.store.delete(BUCKET, "x")).isFalse();
  }

  @Test
  void delete_onlyCopyElsewhere_isRemovedAndReported() throws IOException {
    List<String> names = putMany(30);
    Mountpath mp3 = f.attach("mp3");
    String name = placedOn(names, mp3).get(0);

    assertThat(f.store.delete(BUCKET, name)).isTrue();

    assertThat(f.store.stat(BUCKET, name)).isNull();
    for (Mountpath mp : f.store.mountpaths()) {
      assertThat(f.holds(mp, name)).as("on %s", mp).isFalse();
    }
  }

  @Test
  void list_copyOnTwoMountpaths_namesItOnceWithTheNewerCopy() throws IOException {
    putMany(10);
    ObjectMeta meta = f.put("dup", data("abc"));
    Mountpath hrw = f.store.locate(BUCKET, "dup").mountpath();
    Mountpath other = f.store.mountpaths().stream().filter(mp -> mp != hrw).findFirst().orElseThrow();
    f.plant(other, "dup", data("abc"), at(meta, meta.mtime() - 1000, "older"));

    List<ObjectEntry> all = f.store.list(BUCKET, "", null, "", 100).entries();

    assertThat(all).extracting(ObjectEntry::name).doesNotHaveDuplicates().hasSize(11);
    assertThat(all).filteredOn(e -> e.name().equals("dup")).singleElement()
        .satisfies(e -> assertThat(e.mtime()).isEqualTo(meta.mtime()));
    // Pages cut at the limit still name each object once.
    List<String> paged = new ArrayList<>();
    String after = null;
    while (true) {
      List<ObjectEntry> page = f.store.list(BUCKET, "", after, "", 3).entries();
      if (page.isEmpty()) {
        break;
      }
      page.forEach(e -> paged.add(e.name()));
      after = page.get(page.size() - 1).name();
    }
    assertThat(paged).doesNotHaveDuplicates().hasSize(11);
  }

  @Test
  void stat_missOnHrw_copiesOnTwoOtherMountpaths_returnsTheNewer() throws IOException {
    f.attach("mp3");
    ObjectMeta meta = f.put("x", data("abc"));
    Mountpath held = f.store.locate(BUCKET, "x").mountpath();
    f.setState(held.root().getFileName().toString(), MountpathState.DETACHING);
    Mountpath hrw = f.store.locate(BUCKET, "x").mountpath();
    Mountpath third = f.store.mountpaths().stream().filter(mp -> mp != held && mp != hrw).findFirst().orElseThrow();
    ObjectMeta newer = at(meta, meta.mtime() + 1000, "newer");
    f.plant(third, "x", data("abc"), newer);

    assertThat(f.store.stat(BUCKET, "x")).isEqualTo(newer);
    StoredObject o = f.store.open(BUCKET, "x");
    o.channel().close();
    assertThat(o.meta()).isEqualTo(newer);
  }

  @Test
  void locate_detachingMountpath_takesNoNewObjects_butIsStillRead() throws IOException {
    List<String> names = putMany(40);
    Mountpath mp1 = f.mountpath("mp1");
    List<String> onMp1 = placedOn(names, mp1);

    f.setState("mp1", MountpathState.DETACHING);

    for (String n : names) {
      assertThat(f.store.locate(BUCKET, n).mountpath()).isNotSameAs(mp1);
      assertThat(f.read(n)).as(n).isEqualTo(data("content of " + n));
    }
    assertThat(onMp1).isNotEmpty();
    assertThat(f.store.mountpaths()).contains(mp1);
    assertThat(f.store.list(BUCKET, "", null, "", 100).entries()).hasSize(40);
  }

  @Test
  void disabledMountpath_isNotRead() throws IOException {
    List<String> names = putMany(40);
    Mountpath mp2 = f.mountpath("mp2");
    List<String> onMp2 = placedOn(names, mp2);

    f.setState("mp2", MountpathState.DISABLED);

    assertThat(f.store.mountpaths()).doesNotContain(mp2);
    for (String n : onMp2) {
      assertThat(f.store.stat(BUCKET, n)).as(n).isNull();
    }
    assertThat(f.store.list(BUCKET, "", null, "", 100).entries()).hasSize(40 - onMp2.size());
    f.store.release(mp2);
    assertThat(mp2.meta().isClosed()).isTrue();
    assertThatThrownBy(() -> mp2.meta().get("any")).isInstanceOf(IOException.class); // not a crash in RocksDB
  }

  @Test
  void release_readableMountpath_isRefused() {
    Mountpath mp1 = f.mountpath("mp1");
    assertThatThrownBy(() -> f.store.release(mp1)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void locate_noAvailableMountpath_isUnavailable() throws IOException {
    f.setState("mp1", MountpathState.DISABLED);
    f.setState("mp2", MountpathState.DETACHING);
    assertThatThrownBy(() -> f.store.locate(BUCKET, "x")).isInstanceOf(ServiceUnavailableException.class);
  }

  @Test
  void commitReceived_newerCopyOnAnotherMountpath_isKept() throws IOException {
    ObjectMeta meta = f.put("x", data("abc"));
    Mountpath hrw = f.store.locate(BUCKET, "x").mountpath();
    Mountpath other = f.store.mountpaths().stream().filter(mp -> mp != hrw).findFirst().orElseThrow();
    f.store.delete(BUCKET, "x");
    ObjectMeta newer = at(meta, meta.mtime() + 5000, "newer");
    f.plant(other, "x", data("abc"), newer); // a newer copy not moved to its HRW mountpath yet
    Relocation relocation = new Relocation(f.store, digest -> false);

    PutOperation op = relocation.beginReceive(BUCKET, "x", meta);
    var buf = Unpooled.copiedBuffer(data("abc"));
    op.write(buf);
    buf.release();

    assertThat(relocation.commitReceived(op, meta, 0)).isEqualTo(Relocation.Outcome.KEPT);
    assertThat(f.store.stat(BUCKET, "x")).isEqualTo(newer);
  }

  @Test
  void recovery_commitInterruptedBeforeItRemovedTheSource_removesTheOlderCopies() throws IOException {
    ObjectMeta meta = f.put("x", data("abc"));
    ObjectMeta y = f.put("y", data("abc"));
    ObjectLocation loc = f.store.locate(BUCKET, "x");
    ObjectLocation yLoc = f.store.locate(BUCKET, "y");
    Mountpath other = f.store.mountpaths().stream().filter(mp -> mp != loc.mountpath()).findFirst().orElseThrow();
    // As a kill leaves a move: committed on the HRW mountpath, its intent still there, the source not yet removed
    // (x: record and file; y, on the same mountpath: its record removed but not its file).
    f.plant(other, "x", data("abc"), meta);
    loc.mountpath().meta().putIntent(new CommitIntent(loc.key(), "work/gone", loc.relativeFile(), meta));
    Mountpath yOther = f.store.mountpaths().stream().filter(mp -> mp != yLoc.mountpath()).findFirst().orElseThrow();
    java.nio.file.Files.createDirectories(yLoc.on(yOther).file().getParent());
    java.nio.file.Files.write(yLoc.on(yOther).file(), data("abc"));
    yLoc.mountpath().meta().putIntent(new CommitIntent(yLoc.key(), "work/gone2", yLoc.relativeFile(), y));

    f.reopen("mp1", "mp2");

    for (Mountpath mp : f.store.mountpaths()) {
      assertThat(f.holds(mp, "x")).as("x on %s", mp).isEqualTo(mp.root().equals(loc.mountpath().root()));
      assertThat(f.holds(mp, "y")).as("y on %s", mp).isEqualTo(mp.root().equals(yLoc.mountpath().root()));
      assertThat(mp.meta().intents()).isEmpty();
    }
    assertThat(f.read("x")).isEqualTo(data("abc"));
    assertThat(f.store.list(BUCKET, "", null, "", 10).entries()).hasSize(2);
  }

  @Test
  void recovery_ofAMainCopyRestoredFromAMirrorCopy_keepsTheMirrorCopiesOfThatVersion_dropsAnOlderOne()
      throws IOException {
    f.close();
    f = new MountpathFixture(tmp, "mp1", "mp2", "mp3");
    ObjectMeta meta = f.put("x", data("abc"));
    ObjectLocation loc = f.store.locate(BUCKET, "x");
    List<Mountpath> others = f.store.mountpaths().stream().filter(mp -> mp != loc.mountpath()).toList();
    // As a kill leaves a main copy restored from a mirror copy: committed, its intent still there.
    f.plant(others.get(0), "x", data("abc"), meta.withCopies(List.of(others.get(0).id())));
    f.plant(others.get(1), "x", data("old"), at(meta, meta.mtime() - 1000, "older")
        .withCopies(List.of(others.get(1).id())));
    loc.mountpath().meta().putIntent(new CommitIntent(loc.key(), "work/gone", loc.relativeFile(),
        meta.withCopies(List.of(others.get(0).id()))));

    f.reopen("mp1", "mp2", "mp3");

    assertThat(f.holds(f.mountpath(others.get(0).root().getFileName().toString()), "x"))
        .as("the mirror copy of the version committed").isTrue();
    assertThat(f.holds(f.mountpath(others.get(1).root().getFileName().toString()), "x"))
        .as("an older version's copy").isFalse();
    assertThat(f.read("x")).isEqualTo(data("abc"));
  }

  @Test
  void commit_ofTheSameVersion_keepsItsMirrorCopies_aNewVersionRemovesThem() throws IOException {
    f.close();
    f = new MountpathFixture(tmp, "mp1", "mp2", "mp3");
    ObjectMeta meta = f.put("x", data("abc"));
    ObjectLocation loc = f.store.locate(BUCKET, "x");
    Mountpath copyOn = f.store.mountpaths().stream().filter(mp -> mp != loc.mountpath()).findFirst().orElseThrow();
    f.plant(copyOn, "x", data("abc"), meta.withCopies(List.of(copyOn.id())));
    Mountpath strayOn = f.store.mountpaths().stream().filter(mp -> mp != loc.mountpath() && mp != copyOn)
        .findFirst().orElseThrow();
    f.plant(strayOn, "x", data("abc"), meta); // the same version, but a stray: no mirror copy of itself

    assertThat(CommitProtocol.olderOrStray(copyOn, f.store.copies().metaOn(copyOn, loc.key()), meta)).isFalse();
    assertThat(CommitProtocol.olderOrStray(strayOn, meta, meta)).isTrue();
    f.put("x", data("abcd"));

    assertThat(f.holds(copyOn, "x")).as("an overwrite removes the old version's copies").isFalse();
    assertThat(f.holds(strayOn, "x")).isFalse();
  }

  @Test
  void recovery_newerCopyElsewhere_staysAfterAnInterruptedCommit() throws IOException {
    ObjectMeta meta = f.put("x", data("abc"));
    ObjectLocation loc = f.store.locate(BUCKET, "x");
    Mountpath other = f.store.mountpaths().stream().filter(mp -> mp != loc.mountpath()).findFirst().orElseThrow();
    f.plant(other, "x", data("abc"), at(meta, meta.mtime() + 1000, "newer"));
    loc.mountpath().meta().putIntent(new CommitIntent(loc.key(), "work/gone", loc.relativeFile(), meta));

    f.reopen("mp1", "mp2");

    Mountpath reopened = f.store.mountpaths().stream().filter(mp -> mp.root().equals(other.root())).findFirst()
        .orElseThrow();
    assertThat(f.holds(reopened, "x")).isTrue();
  }

  @Test
  void removeSent_copyNotOnHrwMountpath_isRemoved() throws IOException {
    List<String> names = putMany(30);
    Mountpath mp3 = f.attach("mp3");
    String name = placedOn(names, mp3).get(0);
    ObjectMeta sent = f.store.stat(BUCKET, name);

    assertThat(new Relocation(f.store, digest -> false).removeSent(BUCKET, name, sent)).isTrue();

    assertThat(f.store.stat(BUCKET, name)).isNull();
  }
}
