package io.granary.clustermap.hrw;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.function.ToDoubleFunction;
import java.util.function.Function;

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
 * <p>Instances are immutable and safe to share; build one per cluster-map version or mountpath set.
 *
 * @param <T> candidate type
 */
public final class Rendezvous<T> {
  private static final double TWO_POW_53 = 0x1p53;

  private final Object[] candidates;
  private final long[] digests;
  private final double[] weights;
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
    for (int i = 0; i < n; i++) {
      T c = Objects.requireNonNull(candidates.get(i));
      digests[i] = HrwHash.digest(id.apply(c));
      double w = weight.applyAsDouble(c);
      if (!(w > 0) || Double.isInfinite(w)) {
        throw new IllegalArgumentException("weight of " + id.apply(c) + " must be > 0, got " + w);
      }
      weights[i] = w;
      same &= w == weights[0];
    }
    this.uniform = same;
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
    int best = -1;
    if (uniform) {
      long bestMix = 0;
      for (int i = 0; i < digests.length; i++) {
        long m = HrwHash.mix(digests[i] ^ keyDigest);
        if (best < 0 || Long.compareUnsigned(m, bestMix) > 0) {
          best = i;
          bestMix = m;
        }
      }
    } else {
      double bestScore = 0;
      for (int i = 0; i < digests.length; i++) {
        double s = score(i, keyDigest);
        if (best < 0 || s > bestScore) {
          best = i;
          bestScore = s;
        }
      }
    }
    return best < 0 ? null : (T) candidates[best];
  }

  /** The top {@code n} candidates for a key digest, best first (for replicas and erasure-coded slices). */
  @SuppressWarnings("unchecked")
  public List<T> ranked(long keyDigest, int n) {
    Integer[] order = new Integer[candidates.length];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    Comparator<Integer> better = uniform
        ? (a, b) -> Long.compareUnsigned(HrwHash.mix(digests[b] ^ keyDigest), HrwHash.mix(digests[a] ^ keyDigest))
        : (a, b) -> Double.compare(score(b, keyDigest), score(a, keyDigest));
    Arrays.sort(order, better);
    List<T> out = new ArrayList<>(Math.min(n, order.length));
    for (int i = 0; i < order.length && i < n; i++) {
      out.add((T) candidates[order[i]]);
    }
    return out;
  }

  private double score(int i, long keyDigest) {
    long m = HrwHash.mix(digests[i] ^ keyDigest);
    double u = ((m >>> 11) + 0.5) / TWO_POW_53; // strictly inside (0,1)
    return weights[i] / -Math.log(u);
  }
}
