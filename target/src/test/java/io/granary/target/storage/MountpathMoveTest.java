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
  void keepNewest_olderCopyOnTheJoiningMountpath_isDropped() throws IOException {
    ObjectMeta meta = f.put("x", data("current"));
    Mountpath joining = f.attach("mp3");
    f.plant(joining, "x", data("stale"), at(meta, meta.mtime() - 1000, "stale"));

    assertThat(move.keepNewest(BUCKET, "x", joining)).isFalse();

    assertThat(f.holds(joining, "x")).isFalse();
    assertThat(f.read("x")).isEqualTo(data("current"));
  }

  @Test
  void keepNewest_newerCopyOnTheJoiningMountpath_staysAndTheOlderGo() throws IOException {
    ObjectMeta meta = f.put("x", data("older"));
    Mountpath first = f.store.locate(BUCKET, "x").mountpath();
    Mountpath joining = f.attach("mp3");
    f.plant(joining, "x", data("newer"), at(meta, meta.mtime() + 1000, "newer"));

    assertThat(move.keepNewest(BUCKET, "x", joining)).isTrue();

    assertThat(f.holds(first, "x")).isFalse();
    assertThat(f.read("x")).isEqualTo(data("newer"));
  }
}
