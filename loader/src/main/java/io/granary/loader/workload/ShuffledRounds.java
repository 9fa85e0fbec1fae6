package io.granary.loader.workload;

import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * GET order that reads every object equally: the pool's entries are handed out in rounds, each round a fresh
 * seeded permutation of the entries the pool holds when the round starts, so within a round every name is read
 * exactly once. All workers share one cursor. With {@code --epochs N} a round is an epoch and there are N of them;
 * with unique GETs (aisloader's {@code -uniquegets}, the default) rounds repeat until the run ends, and names a
 * mixed run PUTs join at the next round.
 *
 * <p>Thread-safety: taking the next entry of a round is one atomic increment; starting a round (a shuffle, O(names))
 * takes this object's lock, held by one worker while the others wait for the new round.
 */
public final class ShuffledRounds {
  /** One entry to read and the round it belongs to. */
  public record Pick(NamePool.Entry entry, Round round) {}

  /** One pass over the names: its order, and the reads of it that have finished. */
  public static final class Round {
    private final long number;
    private final int[] order;
    private final long startNanos;
    /** Next index of {@link #order} to hand out; grows past the end once the round is spent. */
    private final AtomicInteger next = new AtomicInteger();
    private final AtomicInteger finished = new AtomicInteger();
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicInteger errors = new AtomicInteger();

    Round(long number, int[] order) {
      this.number = number;
      this.order = order;
      this.startNanos = System.nanoTime();
    }

    /** 0 for the first round. */
    public long number() {
      return number;
    }

    /** How many reads make this round: the pool's size when it started. */
    public int size() {
      return order.length;
    }

    /** {@link System#nanoTime()} when the round's first entry was handed out. */
    public long startNanos() {
      return startNanos;
    }

    public long bytes() {
      return bytes.get();
    }

    public int errors() {
      return errors.get();
    }

    /** Records one finished read of this round; true for the read that completes the round. */
    public boolean finish(long n, boolean ok) {
      bytes.addAndGet(n);
      if (!ok) {
        errors.incrementAndGet();
      }
      return finished.incrementAndGet() == order.length;
    }
  }

  private final NamePool pool;
  private final long seed;
  private final long maxRounds;
  private volatile Round current;
  private volatile boolean exhausted;

  /**
   * @param seed seeds every round's permutation (round r's order depends only on the seed, r and the pool's size)
   * @param maxRounds rounds to hand out before {@link #next} returns null for good; 0 for no limit
   */
  public ShuffledRounds(NamePool pool, long seed, long maxRounds) {
    if (maxRounds < 0) {
      throw new IllegalArgumentException("maxRounds must not be negative");
    }
    this.pool = pool;
    this.seed = seed;
    this.maxRounds = maxRounds;
  }

  /**
   * The next entry to read, or null: while the pool is empty (a mixed run before its first PUT) or, for good, once
   * {@code maxRounds} rounds have been handed out ({@link #exhausted()}).
   */
  public Pick next() {
    while (true) {
      Round r = current;
      if (r != null) {
        int i = r.next.getAndIncrement();
        if (i < r.order.length) {
          return new Pick(pool.get(r.order[i]), r);
        }
      }
      synchronized (this) {
        if (current != r) {
          continue; // another worker started the next round meanwhile
        }
        long number = r == null ? 0 : r.number + 1;
        if (maxRounds > 0 && number >= maxRounds) {
          exhausted = true;
          return null;
        }
        int n = pool.size();
        if (n == 0) {
          return null;
        }
        current = new Round(number, permutation(n, seed, number));
      }
    }
  }

  /** Whether every round has been handed out (never, without a round limit). */
  public boolean exhausted() {
    return exhausted;
  }

  /** The order of round {@code round} over {@code n} names: a Fisher-Yates shuffle seeded by both. */
  static int[] permutation(int n, long seed, long round) {
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    Random random = new Random(seed ^ (round + 1) * 0x9E3779B97F4A7C15L);
    for (int i = n - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      int t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    return order;
  }
}
