package io.granary.loader.mlperf;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The search over a deterministic AU function: counts up to {@code k} pass, above fail. */
class AcceleratorSearchTest {

  private static AcceleratorSearch.Outcome<Integer> search(int start, int max, int k, List<Integer> probed)
      throws Exception {
    return AcceleratorSearch.search(start, max, n -> {
      probed.add(n);
      return n;
    }, n -> n <= k);
  }

  @Test
  void search_doublesThenBisects() throws Exception {
    List<Integer> probed = new ArrayList<>();
    AcceleratorSearch.Outcome<Integer> o = search(1, 8, 5, probed);
    assertThat(o.best()).isEqualTo(5);
    assertThat(probed).containsExactly(1, 2, 4, 8, 6, 5);
    assertThat(o.probes()).containsExactly(1, 2, 4, 8, 6, 5);
    assertThat(o.atLimit()).isFalse();
  }

  @Test
  void search_everyCountPasses_stopsAtTheLimit() throws Exception {
    List<Integer> probed = new ArrayList<>();
    AcceleratorSearch.Outcome<Integer> o = search(1, 8, 100, probed);
    assertThat(o.best()).isEqualTo(8);
    assertThat(probed).containsExactly(1, 2, 4, 8);
    assertThat(o.atLimit()).isTrue();
  }

  @Test
  void search_startAboveTheAnswer_halvesThenBisects() throws Exception {
    List<Integer> probed = new ArrayList<>();
    assertThat(search(16, 64, 11, probed).best()).isEqualTo(11);
    assertThat(probed).containsExactly(16, 8, 12, 10, 11);
  }

  @Test
  void search_nothingPasses_isZero() throws Exception {
    List<Integer> probed = new ArrayList<>();
    assertThat(search(4, 8, 0, probed).best()).isZero();
    assertThat(probed).containsExactly(4, 2, 1);
    probed.clear();
    assertThat(search(1, 8, 0, probed).best()).isZero();
    assertThat(probed).containsExactly(1);
  }

  @Test
  void search_findsTheAnswer_forEveryStartAndAnswer_inFewProbes() throws Exception {
    int max = 100;
    for (int start = 1; start <= max; start++) {
      for (int k = 0; k <= max + 5; k++) {
        List<Integer> probed = new ArrayList<>();
        AcceleratorSearch.Outcome<Integer> o = search(start, max, k, probed);
        assertThat(o.best()).as("start %d, answer %d", start, k).isEqualTo(Math.min(k, max));
        assertThat(probed).as("start %d, answer %d", start, k).doesNotHaveDuplicates().hasSizeLessThanOrEqualTo(16)
            .allMatch(n -> n >= 1 && n <= max);
      }
    }
  }

  @Test
  void search_startBeyondTheLimit_startsAtTheLimit() throws Exception {
    List<Integer> probed = new ArrayList<>();
    assertThat(search(50, 6, 3, probed).best()).isEqualTo(3);
    assertThat(probed.get(0)).isEqualTo(6);
  }
}
