package io.granary.common.listing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class PagesTest {
  private static ObjectEntry entry(String name, long mtime) {
    return new ObjectEntry(name, mtime, null, "e" + mtime, mtime);
  }

  @Test
  void merge_nameOnTwoSources_isListedOnce_withTheNewerCopy() {
    ListPage moved = new ListPage(List.of(entry("a", 1), entry("b", 5)), List.of(), null);
    ListPage owner = new ListPage(List.of(entry("b", 9), entry("c", 2)), List.of(), null);

    for (List<ListPage> order : List.of(List.of(moved, owner), List.of(owner, moved))) {
      ListPage merged = Pages.merge(order, 10, false);
      assertThat(merged.entries()).extracting(ObjectEntry::name).containsExactly("a", "b", "c");
      assertThat(merged.entries().get(1).mtime()).isEqualTo(9);
      assertThat(merged.token()).isNull();
    }
  }

  @Test
  void merge_cutsAtTheLimit_andResumesAfterTheLastName() {
    ListPage one = new ListPage(List.of(entry("a", 1), entry("c", 1)), List.of("b/"), null);
    ListPage merged = Pages.merge(List.of(one), 2, false);
    assertThat(merged.entries()).extracting(ObjectEntry::name).containsExactly("a");
    assertThat(merged.prefixes()).containsExactly("b/");
    assertThat(merged.token()).isNotNull();
  }
}
