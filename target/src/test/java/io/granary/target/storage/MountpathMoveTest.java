package io.granary.target.storage;

import static io.granary.target.storage.MountpathFixture.BUCKET;
import static io.granary.target.storage.MountpathFixture.at;
import static io.granary.target.storage.MountpathFixture.data;
import static org.assertj.core.api.Assertions.assertThat;

import io.granary.target.meta.ObjectMeta;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MountpathMoveTest {
  @TempDir
  Path tmp;
  private MountpathFixture f;
  private MountpathMove move;

  @BeforeEach
  void open() throws IOException {
    f = new MountpathFixture(tmp, "mp1", "mp2");
    move = new MountpathMove(f.store);
  }

  @AfterEach
  void close() throws IOException {
    f.close();
  }

  /** An object put before {@code mp3} was attached whose HRW mountpath is {@code mp3} now, and where it is. */
  private record Misplaced(String name, Mountpath from, ObjectMeta meta) {
  }

  private List<Misplaced> misplacedAfterAttach(int n) throws IOException {
    List<ObjectMeta> metas = new ArrayList<>();
    List<Mountpath> where = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      metas.add(f.put("obj-" + i, data("content " + i)));
      where.add(f.store.locate(BUCKET, "obj-" + i).mountpath());
    }
    Mountpath mp3 = f.attach("mp3");
    List<Misplaced> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      if (f.store.locate(BUCKET, "obj-" + i).mountpath() == mp3) {
        out.add(new Misplaced("obj-" + i, where.get(i), metas.get(i)));
      }
    }
    return out;
  }

  @Test
  void move_toTheNewHrwMountpath_copiesBytesMetaAndAtime_andRemovesTheSource() throws IOException {
    Misplaced m = misplacedAfterAttach(30).get(0);
    ObjectLocation src = f.on(m.name(), m.from());
    m.from().meta().putAtimes(Map.of(src.key(), 12345L));
    Mountpath mp3 = f.mountpath("mp3");
    long fromCount = m.from().usage().objectCount();

    MountpathMove.Result r = move.move(BUCKET, m.name(), m.from());

    assertThat(r.outcome()).isEqualTo(MountpathMove.Outcome.MOVED);
    assertThat(r.bytes()).isEqualTo(m.meta().size());
    assertThat(f.holds(m.from(), m.name())).isFalse();
    assertThat(f.holds(mp3, m.name())).isTrue();
    assertThat(mp3.meta().get(src.key())).isEqualTo(m.meta());
    assertThat(mp3.meta().atime(src.key())).isEqualTo(12345L);
    assertThat(f.read(m.name())).isEqualTo(data("content " + m.name().substring(4)));
    assertThat(m.from().usage().objectCount()).isEqualTo(fromCount - 1);
    assertThat(mp3.usage().objectCount()).isEqualTo(1);
    assertThat(Files.list(mp3.workDir()).count()).isZero();
    assertThat(mp3.meta().intents()).isEmpty();
  }

  @Test
  void move_newerCopyOnTheDestination_isNotOverwritten_andTheSourceGoes() throws IOException {
    Misplaced m = misplacedAfterAttach(30).get(0);
    Mountpath mp3 = f.mountpath("mp3");
    ObjectMeta newer = at(m.meta(), m.meta().mtime() + 1000, "newer");
    f.plant(mp3, m.name(), data("newer bytes!"), newer);

    MountpathMove.Result r = move.move(BUCKET, m.name(), m.from());

    assertThat(r.outcome()).isEqualTo(MountpathMove.Outcome.KEPT);
    assertThat(f.holds(m.from(), m.name())).isFalse();
    assertThat(mp3.meta().get(f.on(m.name(), mp3).key())).isEqualTo(newer);
    assertThat(f.read(m.name())).isEqualTo(data("newer bytes!"));
  }

  @Test
  void move_objectOnItsHrwMountpath_staysInPlace() throws IOException {
    f.put("x", data("abc"));
    Mountpath hrw = f.store.locate(BUCKET, "x").mountpath();

    assertThat(move.move(BUCKET, "x", hrw).outcome()).isEqualTo(MountpathMove.Outcome.IN_PLACE);
    assertThat(f.holds(hrw, "x")).isTrue();
  }

  @Test
  void move_sourceNoLongerHoldsIt_isGone() throws IOException {
    Misplaced m = misplacedAfterAttach(30).get(0);
    f.store.delete(BUCKET, m.name());

    assertThat(move.move(BUCKET, m.name(), m.from()).outcome()).isEqualTo(MountpathMove.Outcome.GONE);
    assertThat(f.store.stat(BUCKET, m.name())).isNull();
  }

  @Test
  void move_overwrittenBeforeTheMove_leavesTheNewVersion() throws IOException {
    Misplaced m = misplacedAfterAttach(30).get(0);
    ObjectMeta fresh = f.put(m.name(), data("rewritten")); // lands on mp3 and removes the older copy

    assertThat(move.move(BUCKET, m.name(), m.from()).outcome()).isEqualTo(MountpathMove.Outcome.GONE);
    assertThat(f.store.stat(BUCKET, m.name())).isEqualTo(fresh);
    assertThat(f.read(m.name())).isEqualTo(data("rewritten"));
  }

  @Test
  void checkReturning_olderCopyOnTheJoiningMountpath_isDropped() throws IOException {
    ObjectMeta meta = f.put("x", data("current"));
    Mountpath joining = f.attach("mp3");
    f.plant(joining, "x", data("stale"), at(meta, meta.mtime() - 1000, "stale"));

    assertThat(move.checkReturning(BUCKET, "x", joining)).isFalse();

    assertThat(f.holds(joining, "x")).isFalse();
    assertThat(f.read("x")).isEqualTo(data("current"));
  }

  @Test
  void checkReturning_aCopyServedMeanwhileWins_evenWithAnOlderMtime() throws IOException {
    ObjectMeta meta = f.put("x", data("written while mp3 was away"));
    Mountpath first = f.store.locate(BUCKET, "x").mountpath();
    Mountpath joining = f.attach("mp3");
    // The returning copy claims to be newer (a clock ahead, or an mtime kept from another target): it still loses.
    f.plant(joining, "x", data("stale"), at(meta, meta.mtime() + 1000, "stale"));

    assertThat(move.checkReturning(BUCKET, "x", joining)).isFalse();

    assertThat(f.holds(joining, "x")).isFalse();
    assertThat(f.holds(first, "x")).isTrue();
    assertThat(f.read("x")).isEqualTo(data("written while mp3 was away"));
  }

  /** Puts objects until one's HRW mountpath is {@code mp}; its name. */
  private String putOn(Mountpath mp, String prefix) throws IOException {
    for (int i = 0; ; i++) {
      if (f.store.locate(BUCKET, prefix + i).mountpath() == mp) {
        f.put(prefix + i, data(prefix + i));
        return prefix + i;
      }
    }
  }

  private void setState(Mountpath mp, MountpathState state) throws IOException {
    f.store.updateMountpaths(s -> s.with(new MountpathSet.Entry(mp.root(), state,
        state == MountpathState.DISABLED ? null : mp, null)));
  }

  @Test
  void deleteWhileAMountpathIsDisabled_isRemembered_andItsCopyDroppedWhenItReturns() throws IOException {
    Mountpath away = f.mountpath("mp2");
    String deleted = putOn(away, "deleted-");
    String kept = putOn(away, "kept-");
    setState(away, MountpathState.DISABLED);

    assertThat(f.store.delete(BUCKET, deleted)).as("not served while its mountpath is disabled").isFalse();
    setState(away, MountpathState.ATTACHING); // back, not checked yet

    assertThat(f.store.stat(BUCKET, deleted)).as("an unchecked copy is not served").isNull();
    assertThat(f.store.stat(BUCKET, kept)).isNull();
    assertThat(f.store.list(BUCKET, "", null, null, 100).entries()).isEmpty();
    assertThat(move.checkReturning(BUCKET, deleted, away)).isFalse();
    assertThat(move.checkReturning(BUCKET, kept, away)).isTrue();
    assertThat(f.holds(away, deleted)).isFalse();
    assertThat(f.holds(away, kept)).isTrue();

    setState(away, MountpathState.AVAILABLE);
    f.store.awayDeletes().forget(away.root());
    assertThat(f.store.awayDeletes().removedWhileAway(away, f.on(deleted, away).key())).as("forgotten once back")
        .isFalse();
    assertThat(f.read(kept)).isEqualTo(data(kept));
    assertThat(f.read(deleted)).isNull();
  }

  @Test
  void writesAndDeletesWhileAMountpathIsAttaching_dropItsCopy_whateverItsMtime() throws IOException {
    Mountpath joining = f.attach("mp3");
    setState(joining, MountpathState.ATTACHING);
    ObjectMeta meta = f.put("x", data("current"));
    ObjectMeta stale = at(meta, meta.mtime() + 60_000, "stale");
    f.plant(joining, "x", data("stale"), stale);
    f.plant(joining, "y", data("stale"), stale);

    ObjectMeta fresh = f.put("x", data("rewritten"));
    assertThat(f.store.delete(BUCKET, "y")).as("y was not served").isFalse();

    assertThat(f.holds(joining, "x")).isFalse();
    assertThat(f.holds(joining, "y")).isFalse();
    assertThat(f.store.stat(BUCKET, "x")).isEqualTo(fresh);
  }
}
