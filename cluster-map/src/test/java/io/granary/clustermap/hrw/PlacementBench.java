package io.granary.clustermap.hrw;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.function.IntToLongFunction;

/**
 * The Java side of {@code bench/placement.sh}, kept in test scope (not part of the product): the time of one owner
 * lookup with N targets, for {@link Rendezvous#pick} and, in the same JVM and interleaved, for the reference: the
 * same selection one candidate at a time (the loop Rendezvous had before, AIStore's {@code hrw.go} loop). Both with
 * equal weights (the default) and with capacity weights (every target a different weight, the worst case); and a
 * whole lookup as the proxy does it (the placement key's XXH64 digest of bucket and object name, then the pick).
 * Each figure is the median of the rounds, each round at least the given seconds over 4,096 keys in turn.
 *
 * <p>{@code java -cp ... io.granary.clustermap.hrw.PlacementBench SECONDS ROUNDS N...}; prints one JSON line per N.
 */
public final class PlacementBench {
  private static final int KEYS = 4096;
  private static volatile long sink;

  private PlacementBench() {}

  public static void main(String[] args) {
    double seconds = Double.parseDouble(args[0]);
    int rounds = Integer.parseInt(args[1]);
    for (int a = 2; a < args.length; a++) {
      int n = Integer.parseInt(args[a]);
      List<String> ids = new ArrayList<>();
      double[] weight = new double[n];
      for (int i = 0; i < n; i++) {
        ids.add("t" + i);
        weight[i] = 1.0 + i / 1000.0; // distinct: a weight group per target
      }
      Rendezvous<String> uniform = Rendezvous.unweighted(ids, Function.identity());
      Rendezvous<String> weighted = new Rendezvous<>(ids, Function.identity(),
          id -> weight[Integer.parseInt(id.substring(1))]);
      OneAtATime refUniform = new OneAtATime(ids, null);
      OneAtATime refWeighted = new OneAtATime(ids, weight);
      long[] keys = new long[KEYS];
      String[] names = new String[KEYS];
      for (int i = 0; i < KEYS; i++) {
        names[i] = "train/shard-" + (i * 7919) + "/sample-" + i + ".jpg";
        keys[i] = HrwHash.digest("ais/@#/imagenet/" + names[i]);
        if (!ids.get(refUniform.pick(keys[i])).equals(uniform.pick(keys[i]))
            || !ids.get(refWeighted.pick(keys[i])).equals(weighted.pick(keys[i]))) {
          throw new AssertionError("Rendezvous and the one-at-a-time reference disagree at key " + i);
        }
      }
      double[][] t = new double[6][rounds];
      for (int r = 0; r < rounds; r++) { // interleaved, the order alternating
        if (r % 2 == 0) {
          t[0][r] = nanosPer(i -> refUniform.pick(keys[i]), seconds);
          t[1][r] = nanosPer(i -> uniform.pick(keys[i]).length(), seconds);
        } else {
          t[1][r] = nanosPer(i -> uniform.pick(keys[i]).length(), seconds);
          t[0][r] = nanosPer(i -> refUniform.pick(keys[i]), seconds);
        }
        t[2][r] = nanosPer(i -> refWeighted.pick(keys[i]), seconds);
        t[3][r] = nanosPer(i -> weighted.pick(keys[i]).length(), seconds);
        // A lookup from the object's name, as the proxy does: the placement key's digest, then the pick.
        t[4][r] = nanosPer(i -> refUniform.pick(HrwHash.digest("ais/@#/imagenet/" + names[i])), seconds);
        t[5][r] = nanosPer(i -> uniform.pick(HrwHash.digest("ais/@#/imagenet/" + names[i])).length(), seconds);
      }
      System.out.printf(Locale.ROOT, "{\"targets\":%d,\"uniform\":{\"reference_ns\":%.1f,\"granary_ns\":%.1f},"
          + "\"weighted\":{\"reference_ns\":%.1f,\"granary_ns\":%.1f},"
          + "\"lookup_with_digest\":{\"reference_ns\":%.1f,\"granary_ns\":%.1f},\"rounds\":%d}%n",
          n, median(t[0]), median(t[1]), median(t[2]), median(t[3]), median(t[4]), median(t[5]), rounds);
    }
  }

  /** Mean ns per call of {@code op(i)} for i = 0..KEYS-1 in turn, repeated for at least {@code seconds}. */
  private static double nanosPer(IntToLongFunction op, double seconds) {
    long deadline = System.nanoTime() + (long) (seconds * 1e9);
    long calls = 0;
    long acc = 0;
    long start = System.nanoTime();
    do {
      for (int i = 0; i < KEYS; i++) {
        acc += op.applyAsLong(i);
      }
      calls += KEYS;
    } while (System.nanoTime() < deadline);
    double ns = (System.nanoTime() - start) / (double) calls;
    sink += acc;
    return ns;
  }

  private static double median(double[] v) {
    double[] s = v.clone();
    Arrays.sort(s);
    return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  }

  /** The reference: each candidate's mix (and score) computed and compared one at a time. */
  private static final class OneAtATime {
    private final long[] digests;
    private final double[] weights; // null: uniform

    OneAtATime(List<String> ids, double[] weights) {
      this.digests = ids.stream().mapToLong(HrwHash::digest).toArray();
      this.weights = weights;
    }

    int pick(long key) {
      int best = 0;
      long bestMix = 0;
      double bestScore = 0;
      for (int i = 0; i < digests.length; i++) {
        long m = HrwHash.mix(digests[i] ^ key);
        if (weights == null) {
          if (i == 0 || Long.compareUnsigned(m, bestMix) > 0) {
            best = i;
            bestMix = m;
          }
        } else {
          double s = weights[i] / -Math.log(((m >>> 11) + 0.5) / 0x1p53);
          if (i == 0 || s > bestScore) {
            best = i;
            bestScore = s;
          }
        }
      }
      return best;
    }
  }
}
