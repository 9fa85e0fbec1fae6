package io.granary.clustermap.hrw;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * Rendezvous (highest random weight) selection over a fixed set of candidates.
 *
 * <p>Design: each candidate has a digest {@code XXH64(id)}; for a key digest {@code k} the candidate with the
 * largest unsigned {@code mix(digest ^ k)} wins (Thaler and Ravishankar, "A name-based mapping scheme for
 * rendezvous", 1996; AIStore {@code core/meta/hrw.go}). Adding a candidate moves only the keys it now wins;
 * removing one moves only the keys it held.
 *
 * <p>Weights: when all weights are equal the unsigned comparison above is used unchanged, so placement is
 * identical to AIStore's. When they differ, the score is {@code w / -ln(u)} with {@code u} the mixed value mapped
 * into (0,1) (weighted rendezvous, Schindelhauer and Schomaker, 2005), which gives each candidate a share of keys
 * proportional to its weight and keeps the minimal-movement property.
 *
 * <p>Speed: every request picks an owner, and with N candidates that is N mixes. Above {@value #SCALAR_MAX}
 * candidates the mixes are computed in two plain loops over arrays (a mix is seven multiplies; C2 vectorizes
 * each half of it but not the whole in one loop body) into a per-thread scratch array, and a third loop finds the
 * largest. With unequal weights the candidate with the largest mix gives a first score {@code B}; no candidate
 * whose {@code u} is below {@code exp(-maxWeight / B)} can beat it, so only the few above that bound have their
 * score (a logarithm) computed. The winner is the one-candidate-at-a-time definition's, ties included (the lowest
 * index wins), which the tests check against it; bench/placement.sh measures both.
 *
 * <p>Instances are immutable and safe to share; build one per cluster-map version or mountpath set.
 *
 * @param <T> candidate type
 */
public final class Rendezvous<T> {
  /** Up to this many candidates the mixes are computed one at a time (no scratch array). */
  static final int SCALAR_MAX = 16;
  private static final double TWO_POW_53 = 0x1p53;
  /** Lowers the weighted bound a little, so rounding in the scores it stands for never excludes a winner. */
  private static final double BOUND_MARGIN = 1 - 1e-9;
  private static final ThreadLocal<long[]> SCRATCH = ThreadLocal.withInitial(() -> new long[64]);

  private final Object[] candidates;
  private final long[] digests;
  private final double[] weights;
  private final double maxWeight;
  private final boolean uniform;

  /**
   * @param candidates the candidates, in any order
   * @param id the stable id of a candidate (hashed into its digest)
   * @param weight a candidate's weight, finite and greater than zero
   */
  public Rendezvous(List<T> candidates, Function<T, String> id, ToDoubleFunction<T> weight) {
    int n = candidates.size();
    this.candidates = candidates.toArray();
    this.digests = new long[n];
    this.weights = new double[n];
    boolean same = true;
    double max = 0;
    for (int i = 0; i < n; i++) {
      T c = Objects.requireNonNull(candidates.get(i));
      digests[i] = HrwHash.digest(id.apply(c));
      double w = weight.applyAsDouble(c);
      if (!(w > 0) || Double.isInfinite(w)) {
        throw new IllegalArgumentException("weight of " + id.apply(c) + " must be > 0, got " + w);
      }
      weights[i] = w;
      same &= w == weights[0];
      max = Math.max(max, w);
    }
    this.uniform = same;
    this.maxWeight = max;
  }

  /** Unweighted selection (every candidate weight 1). */
  public static <T> Rendezvous<T> unweighted(List<T> candidates, Function<T, String> id) {
    return new Rendezvous<>(candidates, id, c -> 1.0);
  }

  public int size() {
    return candidates.length;
  }

  public boolean isEmpty() {
    return candidates.length == 0;
  }

  /** The winner for a key digest, or {@code null} when there are no candidates. */
  @SuppressWarnings("unchecked")
  public T pick(long keyDigest) {
    int n = digests.length;
    if (n == 0) {
      return null;
    }
    return (T) candidates[n <= SCALAR_MAX ? pickOneAtATime(keyDigest) : pickOverArrays(keyDigest)];
  }

  private int pickOneAtATime(long keyDigest) {
    int best = 0;
    long bestMix = HrwHash.mix(digests[0] ^ keyDigest);
    double bestScore = uniform ? 0 : score(0, bestMix ^ Long.MIN_VALUE);
    for (int i = 1; i < digests.length; i++) {
      long m = HrwHash.mix(digests[i] ^ keyDigest);
      if (uniform) {
        if (Long.compareUnsigned(m, bestMix) > 0) {
          best = i;
          bestMix = m;
        }
      } else {
        double s = score(i, m ^ Long.MIN_VALUE);
        if (s > bestScore) {
          best = i;
          bestScore = s;
        }
      }
    }
    return best;
  }

  private int pickOverArrays(long keyDigest) {
    int n = digests.length;
    long[] s = scratch(n);
    mixAll(digests, keyDigest, s, n);
    int best = firstMax(s, n);
    if (uniform) {
      return best;
    }
    // Every candidate with u <= bound scores below the largest mix's score: score <= maxWeight / -ln(u).
    double bestScore = score(best, s[best]);
    long bound = (long) Math.floor(Math.exp(-maxWeight / bestScore) * BOUND_MARGIN * TWO_POW_53 - 0.5);
    long atLeast = bound <= 0 ? Long.MIN_VALUE : (bound << 11) ^ Long.MIN_VALUE; // mixes with top bits >= bound
    for (int i = 0; i < n; i++) {
      if (s[i] >= atLeast && i != best) {
        double sc = score(i, s[i]);
        if (sc > bestScore || (sc == bestScore && i < best)) {
          best = i;
          bestScore = sc;
        }
      }
    }
    return best;
  }

  /** The top {@code n} candidates for a key digest, best first (for replicas and erasure-coded slices). */
  @SuppressWarnings("unchecked")
  public List<T> ranked(long keyDigest, int n) {
    int size = digests.length;
    long[] s = new long[size];
    mixAll(digests, keyDigest, s, size);
    double[] score = new double[size];
    for (int i = 0; i < size && !uniform; i++) {
      score[i] = score(i, s[i]);
    }
    Integer[] order = new Integer[size];
    for (int i = 0; i < size; i++) {
      order[i] = i;
    }
    // Stable: equal mixes (or scores) keep the lower index first.
    Arrays.sort(order, (a, b) -> uniform ? Long.compare(s[b], s[a]) : Double.compare(score[b], score[a]));
    List<T> out = new ArrayList<>(Math.min(n, size));
    for (int i = 0; i < size && i < n; i++) {
      out.add((T) candidates[order[i]]);
    }
    return out;
  }

  /** The weighted score {@code w / -ln(u)} of candidate i, from its sign-flipped mix. */
  private double score(int i, long flipped) {
    double u = (((flipped ^ Long.MIN_VALUE) >>> 11) + 0.5) / TWO_POW_53; // strictly inside (0,1)
    return weights[i] / -Math.log(u);
  }

  private static long[] scratch(int n) {
    long[] s = SCRATCH.get();
    if (s.length < n) {
      s = new long[Math.max(n, s.length * 2)];
      SCRATCH.set(s);
    }
    return s;
  }

  /**
   * {@code out[i] = mix(digests[i] ^ key) ^ Long.MIN_VALUE} for i below n: {@link HrwHash#mix} in two loops, each
   * simple enough for C2 to vectorize; the sign flip makes signed order the mixes' unsigned order.
   */
  static void mixAll(long[] digests, long key, long[] out, int n) {
    mixFirstHalf(digests, key, out, n);
    mixSecondHalf(out, n);
  }

  private static void mixFirstHalf(long[] digests, long key, long[] out, int n) {
    for (int i = 0; i < n; i++) {
      long z = (digests[i] ^ key) + HrwHash.GOLDEN;
      z = (z ^ (z >>> 30)) * HrwHash.M1;
      z = (z ^ (z >>> 27)) * HrwHash.M2;
      out[i] = (z ^ (z >>> 31)) + HrwHash.GOLDEN;
    }
  }

  private static void mixSecondHalf(long[] out, int n) {
    for (int i = 0; i < n; i++) {
      long z = out[i];
      z = (z ^ (z >>> 30)) * HrwHash.M1;
      z = (z ^ (z >>> 27)) * HrwHash.M2;
      z = z ^ (z >>> 31);
      z = (z << 2) + z; // * 5 and * 9 as shifts and adds: a vector multiply of longs costs several of them
      long r = Long.rotateLeft(z, 7);
      out[i] = ((r << 3) + r) ^ Long.MIN_VALUE;
    }
  }

  /** The first position below n with the largest value. */
  private static int firstMax(long[] s, int n) {
    int best = 0;
    long bestValue = s[0];
    for (int i = 1; i < n; i++) {
      long v = s[i];
      if (v > bestValue) { // rarely taken (about ln n times): a predicted branch, not a chain of conditional moves
        best = i;
        bestValue = v;
      }
    }
    return best;
  }
}
