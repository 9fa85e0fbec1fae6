package io.granary.clustermap.hrw;

import java.nio.charset.StandardCharsets;
import net.openhft.hashing.LongHashFunction;

/**
 * The two hash primitives of HRW placement, bit-compatible with AIStore.
 *
 * <p>Digests are XXH64 with seed {@value #SEED} (AIStore's {@code MLCG32}) over UTF-8 bytes. The per-candidate
 * weight is {@link #mix(long)} of {@code candidateDigest ^ keyDigest}, AIStore's {@code xoshiro256.Hash}: a
 * stateless splitmix64-based finaliser. Weights are compared as unsigned 64-bit values.
 */
public final class HrwHash {
  /** AIStore's MLCG32 seed, used for every placement digest. */
  public static final long SEED = 1103515245L;

  private static final LongHashFunction XXH64 = LongHashFunction.xx(SEED);
  static final long GOLDEN = 0x9e3779b97f4a7c15L;
  static final long M1 = 0xbf58476d1ce4e5b9L;
  static final long M2 = 0x94d049bb133111ebL;

  private HrwHash() {}

  /** XXH64(utf8(s), {@value #SEED}): the digest of a node id, a mountpath or a placement key. */
  public static long digest(String s) {
    return XXH64.hashBytes(s.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * AIStore's {@code xoshiro256.Hash}: two splitmix64 rounds, then a multiply/rotate finish. {@link Rendezvous}
   * computes the same over arrays of digests; keep the two in step.
   */
  public static long mix(long x) {
    long z = x + GOLDEN;
    z = (z ^ (z >>> 30)) * M1;
    z = (z ^ (z >>> 27)) * M2;
    z = (z ^ (z >>> 31)) + GOLDEN;
    z = (z ^ (z >>> 30)) * M1;
    z = (z ^ (z >>> 27)) * M2;
    z = (z ^ (z >>> 31)) * 5;
    return Long.rotateLeft(z, 7) * 9;
  }
}
