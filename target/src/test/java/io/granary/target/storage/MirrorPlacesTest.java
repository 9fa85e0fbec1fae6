package io.granary.target.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MirrorPlacesTest {
  @TempDir
  Path dir;
  private final List<Mountpath> mps = new ArrayList<>();

  @BeforeEach
  void open() throws Exception {
    for (int i = 1; i <= 4; i++) {
      mps.add(Mountpath.open(dir.resolve("mp" + i)));
    }
  }

  @AfterEach
  void close() throws Exception {
    for (Mountpath mp : mps) {
      mp.close();
    }
  }

  @Test
  void mirrorPlaces_distinctAndNeverTheMainMountpath() {
    MountpathSet set = MountpathSet.allAvailable(mps);
    Random r = new Random(7);
    for (int i = 0; i < 1000; i++) {
      long digest = r.nextLong();
      for (int copies = 1; copies <= 6; copies++) {
        List<Mountpath> places = set.mirrorPlaces(digest, copies);
        assertThat(places).hasSize(Math.min(copies, mps.size()) - 1);
        assertThat(places).doesNotContain(set.pick(digest));
        assertThat(new HashSet<>(places)).hasSameSizeAs(places);
      }
    }
  }

  @Test
  void mirrorPlaces_sameWhateverOrderTheMountpathsCameIn() {
    MountpathSet a = MountpathSet.allAvailable(mps);
    MountpathSet b = MountpathSet.allAvailable(List.of(mps.get(3), mps.get(1), mps.get(0), mps.get(2)));
    Random r = new Random(11);
    for (int i = 0; i < 1000; i++) {
      long digest = r.nextLong();
      assertThat(b.mirrorPlaces(digest, 3)).isEqualTo(a.mirrorPlaces(digest, 3));
    }
  }

  @Test
  void mirrorPlaces_aMountpathLost_movesOnlyWhatItHeld() {
    MountpathSet all = MountpathSet.allAvailable(mps);
    MountpathSet without = MountpathSet.allAvailable(mps.subList(0, 3));
    Mountpath lost = mps.get(3);
    Random r = new Random(13);
    for (int i = 0; i < 1000; i++) {
      long digest = r.nextLong();
      List<Mountpath> before = new ArrayList<>(all.mirrorPlaces(digest, 2));
      before.add(0, all.pick(digest));
      if (!before.contains(lost)) {
        assertThat(without.pick(digest)).isEqualTo(all.pick(digest));
        assertThat(without.mirrorPlaces(digest, 2)).isEqualTo(all.mirrorPlaces(digest, 2));
      }
    }
  }

  @Test
  void mirrorPlaces_oneCopy_none() {
    assertThat(MountpathSet.allAvailable(mps).mirrorPlaces(42, 1)).isEmpty();
  }
}
