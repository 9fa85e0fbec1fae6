package io.granary.clustermap.hrw;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class RendezvousTest {
  private static final int KEYS = 100_000;

  private static List<String> ids(int n) {
    List<String> ids = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      ids.add("target-" + i);
    }
    return ids;
  }

  private static long key(int i) {
    return HrwHash.digest("ais/@#/bench/shard-" + i + ".tar");
  }

  private static Map<String, Integer> counts(Rendezvous<String> hrw) {
    Map<String, Integer> counts = new HashMap<>();
    for (int i = 0; i < KEYS; i++) {
      counts.merge(hrw.pick(key(i)), 1, Integer::sum);
    }
    return counts;
  }

  @ParameterizedTest(name = "{0} targets")
  @ValueSource(ints = {10, 100})
  void pick_spreadsKeysEvenly_maxOverMeanAtMost110(int targets) {
    Map<String, Integer> counts = counts(Rendezvous.unweighted(ids(targets), Function.identity()));

    double mean = (double) KEYS / targets;
    int max = counts.values().stream().mapToInt(Integer::intValue).max().orElseThrow();
    assertThat(counts).hasSize(targets);
    assertThat(max / mean).isLessThanOrEqualTo(1.10);
  }

  @ParameterizedTest(name = "{0} -> {0}+1 targets")
  @ValueSource(ints = {3, 10, 50})
  void addingOneTarget_movesAboutOneInNPlusOne_andNothingBetweenOldTargets(int n) {
    Rendezvous<String> before = Rendezvous.unweighted(ids(n), Function.identity());
    Rendezvous<String> after = Rendezvous.unweighted(ids(n + 1), Function.identity());
    String added = "target-" + (n + 1);

    int moved = 0;
    for (int i = 0; i < KEYS; i++) {
      String a = before.pick(key(i));
      String b = after.pick(key(i));
      if (!a.equals(b)) {
        assertThat(b).as("a moved key may only go to the new target").isEqualTo(added);
        moved++;
      }
    }
    double expected = (double) KEYS / (n + 1);
    assertThat((double) moved).isBetween(expected * 0.9, expected * 1.1);
  }

  @Test
  void weights_shiftSharesInProportion() {
    List<String> ids = List.of("a", "b", "c", "d");
    Map<String, Double> weight = Map.of("a", 1.0, "b", 2.0, "c", 3.0, "d", 4.0);
    Map<String, Integer> counts = counts(new Rendezvous<>(ids, Function.identity(), weight::get));

    for (String id : ids) {
      double expectedShare = weight.get(id) / 10.0;
      double share = counts.get(id) / (double) KEYS;
      assertThat(share).as("share of %s", id).isCloseTo(expectedShare, org.assertj.core.data.Offset.offset(0.01));
    }
  }

  @Test
  void weights_doublingOneNodeMovesKeysOnlyToIt() {
    List<String> ids = ids(5);
    Rendezvous<String> before = new Rendezvous<>(ids, Function.identity(), id -> 1.0);
    Rendezvous<String> after = new Rendezvous<>(ids, Function.identity(), id -> id.equals("target-3") ? 2.0 : 1.0);
    for (int i = 0; i < KEYS; i++) {
      String a = before.pick(key(i));
      String b = after.pick(key(i));
      if (!a.equals(b)) {
        assertThat(b).isEqualTo("target-3");
      }
    }
  }

  @Test
  void equalWeights_pickExactlyAsUnweightedAistoreOrder() {
    List<String> ids = ids(7);
    Rendezvous<String> plain = Rendezvous.unweighted(ids, Function.identity());
    Rendezvous<String> heavy = new Rendezvous<>(ids, Function.identity(), id -> 8.0);
    for (int i = 0; i < 10_000; i++) {
      long k = key(i);
      String expected = null;
      long best = 0;
      for (String id : ids) { // the AIStore loop, written out
        long m = HrwHash.mix(HrwHash.digest(id) ^ k);
        if (expected == null || Long.compareUnsigned(m, best) > 0) {
          expected = id;
          best = m;
        }
      }
      assertThat(plain.pick(k)).isEqualTo(expected);
      assertThat(heavy.pick(k)).isEqualTo(expected);
    }
  }

  @Test
  void ranked_startsWithPickAndListsDistinctCandidates() {
    Rendezvous<String> hrw = Rendezvous.unweighted(ids(10), Function.identity());
    for (int i = 0; i < 1000; i++) {
      List<String> top = hrw.ranked(key(i), 4);
      assertThat(top).hasSize(4).doesNotHaveDuplicates();
      assertThat(top.get(0)).isEqualTo(hrw.pick(key(i)));
    }
  }

  /**
   * The definition, one candidate at a time (the loop Rendezvous had before it computed mixes over arrays): the
   * largest unsigned mix, or with unequal weights the largest {@code w / -ln(u)}; the lowest index on a tie.
   */
  private static String referencePick(List<String> ids, ToDoubleFunction<String> weight, long k) {
    boolean uniform = ids.stream().mapToDouble(weight).distinct().count() == 1;
    String best = null;
    long bestMix = 0;
    double bestScore = 0;
    for (String id : ids) {
      long m = HrwHash.mix(HrwHash.digest(id) ^ k);
      double score = weight.applyAsDouble(id) / -Math.log(((m >>> 11) + 0.5) / 0x1p53);
      if (best == null || (uniform ? Long.compareUnsigned(m, bestMix) > 0 : score > bestScore)) {
        best = id;
        bestMix = m;
        bestScore = score;
      }
    }
    return best;
  }

  /** Sizes on both sides of the scalar/array switch, and a cluster of 1,000 targets. */
  @ParameterizedTest(name = "{0} targets")
  @ValueSource(ints = {1, 2, 3, Rendezvous.SCALAR_MAX, Rendezvous.SCALAR_MAX + 1, 63, 64, 65, 1000})
  void pick_isTheOneAtATimeDefinition_uniformAndWeighted(int n) {
    List<String> ids = ids(n);
    Map<String, Double> few = new HashMap<>(); // three weights, interleaved: groups are not contiguous in ids
    Map<String, Double> distinct = new HashMap<>(); // every weight different: a group per candidate
    for (int i = 0; i < n; i++) {
      few.put(ids.get(i), new double[] {1.0, 2.5, 4.0}[i % 3]);
      distinct.put(ids.get(i), 1.0 + i / 7.0);
    }
    Rendezvous<String> uniform = Rendezvous.unweighted(ids, Function.identity());
    Rendezvous<String> grouped = new Rendezvous<>(ids, Function.identity(), few::get);
    Rendezvous<String> single = new Rendezvous<>(ids, Function.identity(), distinct::get);
    int keys = n >= 1000 ? 3_000 : 20_000;
    for (int i = 0; i < keys; i++) {
      long k = key(i);
      assertThat(uniform.pick(k)).isEqualTo(referencePick(ids, id -> 1.0, k));
      assertThat(grouped.pick(k)).isEqualTo(referencePick(ids, few::get, k));
      assertThat(single.pick(k)).isEqualTo(referencePick(ids, distinct::get, k));
    }
  }

  @Test
  void pick_equalMixes_lowestIndexWins() {
    // The same id twice has the same digest, so the same mix for every key: the first one must win, as in the
    // one-at-a-time loop, on both sides of the scalar/array switch and within a weight group.
    for (int n : new int[] {4, 40}) {
      List<Map.Entry<String, Integer>> candidates = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        candidates.add(Map.entry("target-" + (i % (n / 2)), i));
      }
      Rendezvous<Map.Entry<String, Integer>> uniform = Rendezvous.unweighted(candidates, Map.Entry::getKey);
      Rendezvous<Map.Entry<String, Integer>> weighted = new Rendezvous<>(candidates, Map.Entry::getKey,
          e -> e.getValue() % 2 == 0 ? 1.0 : 3.0);
      for (int i = 0; i < 2000; i++) {
        assertThat(uniform.pick(key(i)).getValue()).isLessThan(n / 2);
        Map.Entry<String, Integer> w = weighted.pick(key(i));
        assertThat(w.getValue()).as("the first of the same-weight twins").isEqualTo(
            candidates.stream().filter(c -> c.getKey().equals(w.getKey()) && c.getValue() % 2 == w.getValue() % 2)
                .findFirst().orElseThrow().getValue());
      }
    }
  }

  @Test
  void ranked_isTheDefinitionsOrder() {
    List<String> ids = ids(40);
    Map<String, Double> weight = new HashMap<>();
    for (int i = 0; i < ids.size(); i++) {
      weight.put(ids.get(i), 1.0 + i % 4);
    }
    Rendezvous<String> uniform = Rendezvous.unweighted(ids, Function.identity());
    Rendezvous<String> weighted = new Rendezvous<>(ids, Function.identity(), weight::get);
    for (int i = 0; i < 500; i++) {
      long k = key(i);
      List<String> u = uniform.ranked(k, 5);
      List<String> w = weighted.ranked(k, 5);
      List<String> restU = new ArrayList<>(ids);
      List<String> restW = new ArrayList<>(ids);
      for (int r = 0; r < 5; r++) { // the best of the rest, again and again
        String nextU = referencePick(restU, id -> 1.0, k);
        String nextW = referencePick(restW, weight::get, k);
        assertThat(u.get(r)).isEqualTo(nextU);
        assertThat(w.get(r)).isEqualTo(nextW);
        restU.remove(nextU);
        restW.remove(nextW);
      }
    }
  }

  @Test
  void pick_noCandidates_returnsNull() {
    assertThat(Rendezvous.unweighted(List.<String>of(), Function.identity()).pick(42)).isNull();
  }

  @Test
  void constructor_rejectsNonPositiveWeight() {
    assertThatThrownBy(() -> new Rendezvous<>(List.of("a"), Function.identity(), id -> 0.0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("weight");
  }
}
