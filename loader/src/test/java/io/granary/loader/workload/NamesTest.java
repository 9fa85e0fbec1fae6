package io.granary.loader.workload;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NamesTest {
  @Test
  void forLoader_partitionsEveryNameExactlyOnce_whateverTheOrder() {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < 10_000; i++) {
      names.add("train/shard-" + i + (i % 3 == 0 ? "-日本語" : ""));
    }
    List<String> shuffled = new ArrayList<>(names);
    Collections.shuffle(shuffled, new Random(1));
    Set<String> seen = new HashSet<>();
    for (int id = 0; id < 3; id++) {
      List<String> mine = Names.forLoader(names, id, 3);
      assertThat(mine.size()).isBetween(3000, 3700);
      assertThat(new HashSet<>(Names.forLoader(shuffled, id, 3))).isEqualTo(new HashSet<>(mine));
      for (String n : mine) {
        assertThat(seen.add(n)).as("%s taken twice", n).isTrue();
      }
    }
    assertThat(seen).hasSize(names.size());
    assertThat(Names.forLoader(names, 0, 1)).isEqualTo(names);
  }

  @Test
  void read_skipsBlankAndComments(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("names");
    Files.writeString(f, "# header\na/b\n\n  c d  \n", StandardCharsets.UTF_8);
    assertThat(Names.read(f)).containsExactly("a/b", "c d");
  }

  @Test
  void putName_isUnderTheLoadersPrefix() {
    assertThat(Names.putName(3, 7, 12)).isEqualTo("loader-3/w007-000000012");
  }

  @Test
  void pool_picksOnlyWhatWasAdded_andKnowsWhatItWrote() {
    NamePool p = new NamePool(List.of("given"));
    for (int i = 0; i < 100; i++) {
      p.add(new NamePool.Entry("w" + i, i));
    }
    assertThat(p.size()).isEqualTo(101);
    assertThat(p.written()).hasSize(100).allMatch(NamePool.Entry::written);
    Random r = new Random(5);
    for (int i = 0; i < 1000; i++) {
      assertThat(p.pick(r)).isNotNull();
    }
    assertThat(new NamePool(List.of()).pick(r)).isNull();
  }
}
