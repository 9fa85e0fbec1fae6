package io.granary.loader.workload;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;

class ShuffledRoundsTest {
  private static List<String> names(int n) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add("train/shard-" + i);
    }
    return out;
  }

  private static List<String> take(ShuffledRounds r, int n) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(r.next().entry().name());
    }
    return out;
  }

  @Test
  void epochs_readEveryNameOncePerEpoch_inAFreshOrderEach_thenEnd() {
    ShuffledRounds r = new ShuffledRounds(new NamePool(names(1000)), 42, 3);
    List<List<String>> epochs = new ArrayList<>();
    for (int e = 0; e < 3; e++) {
      epochs.add(take(r, 1000));
      assertThat(new HashSet<>(epochs.get(e))).as("epoch %d", e).containsExactlyInAnyOrderElementsOf(names(1000));
    }
    assertThat(epochs.get(0)).isNotEqualTo(names(1000)).isNotEqualTo(epochs.get(1));
    assertThat(epochs.get(1)).isNotEqualTo(epochs.get(2));
    assertThat(r.exhausted()).isFalse();
    assertThat(r.next()).isNull();
    assertThat(r.exhausted()).isTrue();
    assertThat(r.next()).as("stays done").isNull();
  }

  @Test
  void epochs_sameSeed_sameOrder_otherSeed_otherOrder() {
    List<String> a = take(new ShuffledRounds(new NamePool(names(500)), 7, 2), 1000);
    assertThat(take(new ShuffledRounds(new NamePool(names(500)), 7, 2), 1000)).isEqualTo(a);
    assertThat(take(new ShuffledRounds(new NamePool(names(500)), 8, 2), 1000)).isNotEqualTo(a);
  }

  @Test
  void epochs_workersSharingTheCursor_readEachNameExactlyEpochsTimes_andCompleteEachRoundOnce() throws Exception {
    int names = 5000;
    int epochs = 4;
    ShuffledRounds r = new ShuffledRounds(new NamePool(names(names)), 1, epochs);
    Map<String, LongAdder> reads = new ConcurrentHashMap<>();
    AtomicInteger completed = new AtomicInteger();
    List<Long> completedRounds = Collections.synchronizedList(new ArrayList<>());
    List<Thread> workers = new ArrayList<>();
    for (int w = 0; w < 8; w++) {
      workers.add(new Thread(() -> {
        for (ShuffledRounds.Pick p; (p = r.next()) != null; ) {
          reads.computeIfAbsent(p.entry().name(), k -> new LongAdder()).increment();
          if (p.round().finish(10, true)) {
            completed.incrementAndGet();
            completedRounds.add(p.round().number());
          }
        }
      }));
    }
    workers.forEach(Thread::start);
    for (Thread t : workers) {
      t.join(10_000);
    }
    assertThat(reads).hasSize(names);
    assertThat(reads.values()).allSatisfy(n -> assertThat(n.sum()).isEqualTo(epochs));
    assertThat(completed.get()).isEqualTo(epochs);
    assertThat(completedRounds).containsExactlyInAnyOrder(0L, 1L, 2L, 3L);
    assertThat(r.exhausted()).isTrue();
  }

  @Test
  void uniqueGets_everyNameReadEqually_reshuffledWhenExhausted_withoutEnd() {
    ShuffledRounds r = new ShuffledRounds(new NamePool(names(100)), 3, 0);
    List<String> first = take(r, 100);
    List<String> second = take(r, 100);
    assertThat(first).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(names(100));
    assertThat(second).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(names(100)).isNotEqualTo(first);
    take(r, 100_000);
    assertThat(r.exhausted()).isFalse();
  }

  @Test
  void uniqueGets_namesPutDuringARound_joinTheNextRound() {
    NamePool pool = new NamePool(names(10));
    ShuffledRounds r = new ShuffledRounds(pool, 3, 0);
    List<String> first = take(r, 5);
    pool.add(new NamePool.Entry("loader-0/w000-000000000", 4));
    first.addAll(take(r, 5));
    assertThat(first).containsExactlyInAnyOrderElementsOf(names(10));
    List<String> second = take(r, 11);
    assertThat(second).doesNotHaveDuplicates().contains("loader-0/w000-000000000").hasSize(11);
  }

  @Test
  void emptyPool_nothingYet_butNotExhausted() {
    NamePool pool = new NamePool(List.of());
    ShuffledRounds r = new ShuffledRounds(pool, 3, 0);
    assertThat(r.next()).isNull();
    assertThat(r.exhausted()).isFalse();
    pool.add(new NamePool.Entry("a", 1));
    assertThat(r.next().entry().name()).isEqualTo("a");
  }

  @Test
  void uniformPicks_withReplacement_repeatNamesWithinOnePass() {
    NamePool pool = new NamePool(names(100));
    Random random = new Random(1);
    Map<String, Integer> seen = new HashMap<>();
    for (int i = 0; i < 100; i++) {
      seen.merge(pool.pick(random).name(), 1, Integer::sum);
    }
    assertThat(seen.size()).as("a uniform draw of n from n leaves about 1/e unread").isBetween(50, 75);
  }

  @Test
  void round_finish_countsBytesAndErrors() {
    ShuffledRounds r = new ShuffledRounds(new NamePool(names(2)), 1, 1);
    ShuffledRounds.Round round = r.next().round();
    assertThat(round.finish(100, true)).isFalse();
    assertThat(round.finish(0, false)).isTrue();
    assertThat(round.bytes()).isEqualTo(100);
    assertThat(round.errors()).isEqualTo(1);
    assertThat(round.size()).isEqualTo(2);
    assertThat(round.number()).isZero();
  }
}
