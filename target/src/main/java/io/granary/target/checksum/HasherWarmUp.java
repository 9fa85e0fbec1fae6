package io.granary.target.checksum;

import io.granary.clustermap.bucket.ChecksumType;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;

/**
 * Runs every checksum over a few MiB before the target joins, so that the JIT has compiled the hashing loops (the
 * hand-written XXH64 needs C2) before the first copies arrive. A target that joins is sent its share at once and
 * verifies every byte; on a cold JVM that hashing ran in profiled, not yet optimized code while the compiler
 * threads took the cores, and the new target's first reads stalled for a second or more (bench/rebalance.sh, p99
 * part, before and after this warm-up).
 */
public final class HasherWarmUp {
  /** XXH64, the default, is Java code the JIT must compile; the others are mostly intrinsics. */
  static final long XXH64_BYTES = 96L << 20;
  static final long OTHER_BYTES = 4L << 20;
  private static final int CHUNK = 64 * 1024;

  private HasherWarmUp() {}

  /** Hashes with every checksum type, in chunks of varying length as a stream brings them; returns the time taken. */
  public static long run() {
    long start = System.nanoTime();
    ByteBuffer direct = ByteBuffer.allocateDirect(CHUNK);
    byte[] bytes = new byte[CHUNK];
    new SplittableRandom(17).nextBytes(bytes);
    direct.put(bytes).flip();
    ByteBuffer heap = ByteBuffer.wrap(bytes);
    String sink = "";
    for (ChecksumType type : ChecksumType.values()) {
      long total = type == ChecksumType.XXHASH64 ? XXH64_BYTES : OTHER_BYTES;
      ContentHasher h = ContentHasher.of(type);
      int i = 0;
      for (long done = 0; done < total; i++) {
        ByteBuffer src = (i & 1) == 0 ? direct : heap;
        int len = CHUNK - (i % 33); // uneven lengths: the carried partial stripe is exercised too
        h.update(src.duplicate().limit(len));
        done += len;
      }
      sink = h.hex();
    }
    if (sink.isEmpty()) {
      throw new IllegalStateException("no checksum"); // keeps the work from being optimized away
    }
    return System.nanoTime() - start;
  }
}
