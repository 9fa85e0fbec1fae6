package io.granary.target.checksum;

import io.granary.clustermap.bucket.ChecksumType;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Streaming XXH64 (Yann Collet, xxHash spec rev. 0.8) that reads direct buffers in place.
 *
 * <p>Hand-written because the libraries here either hash only a whole input at once (zero-allocation-hashing) or
 * stream only from heap arrays (lz4-java), which would copy every object byte onto the heap. Tested against
 * zero-allocation-hashing for every split of the input.
 */
final class Xxh64Hasher implements ContentHasher {
  private static final long P1 = 0x9E3779B185EBCA87L;
  private static final long P2 = 0xC2B2AE3D27D4EB4FL;
  private static final long P3 = 0x165667B19E3779F9L;
  private static final long P4 = 0x85EBCA77C2B2AE63L;
  private static final long P5 = 0x27D4EB2F165667C5L;

  private final long seed;
  private long v1;
  private long v2;
  private long v3;
  private long v4;
  private long total;
  // Bytes of an unfinished 32-byte stripe carried between updates (at most 31 bytes).
  private final ByteBuffer stripe = ByteBuffer.allocate(32).order(ByteOrder.LITTLE_ENDIAN);

  Xxh64Hasher(long seed) {
    this.seed = seed;
    v1 = seed + P1 + P2;
    v2 = seed + P2;
    v3 = seed;
    v4 = seed - P1;
  }

  @Override
  public ChecksumType type() {
    return ChecksumType.XXHASH64;
  }

  @Override
  public void update(ByteBuffer input) {
    ByteBuffer in = input.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    total += in.remaining();
    if (stripe.position() > 0) {
      while (stripe.hasRemaining() && in.hasRemaining()) {
        stripe.put(in.get());
      }
      if (stripe.hasRemaining()) {
        return;
      }
      consumeStripe(stripe, 0);
      stripe.clear();
    }
    int pos = in.position();
    int limit = in.limit();
    while (limit - pos >= 32) {
      consumeStripe(in, pos);
      pos += 32;
    }
    in.position(pos);
    while (in.hasRemaining()) {
      stripe.put(in.get());
    }
  }

  private void consumeStripe(ByteBuffer b, int at) {
    v1 = round(v1, b.getLong(at));
    v2 = round(v2, b.getLong(at + 8));
    v3 = round(v3, b.getLong(at + 16));
    v4 = round(v4, b.getLong(at + 24));
  }

  private static long round(long acc, long input) {
    acc += input * P2;
    acc = Long.rotateLeft(acc, 31);
    return acc * P1;
  }

  private static long merge(long acc, long val) {
    acc ^= round(0, val);
    return acc * P1 + P4;
  }

  /** The hash as a signed long (compare with other XXH64 implementations). */
  long value() {
    long h;
    if (total >= 32) {
      h = Long.rotateLeft(v1, 1) + Long.rotateLeft(v2, 7) + Long.rotateLeft(v3, 12) + Long.rotateLeft(v4, 18);
      h = merge(h, v1);
      h = merge(h, v2);
      h = merge(h, v3);
      h = merge(h, v4);
    } else {
      h = seed + P5;
    }
    h += total;
    int n = stripe.position();
    int i = 0;
    for (; i + 8 <= n; i += 8) {
      h ^= round(0, stripe.getLong(i));
      h = Long.rotateLeft(h, 27) * P1 + P4;
    }
    if (i + 4 <= n) {
      h ^= (stripe.getInt(i) & 0xFFFFFFFFL) * P1;
      h = Long.rotateLeft(h, 23) * P2 + P3;
      i += 4;
    }
    for (; i < n; i++) {
      h ^= (stripe.get(i) & 0xFFL) * P5;
      h = Long.rotateLeft(h, 11) * P1;
    }
    h ^= h >>> 33;
    h *= P2;
    h ^= h >>> 29;
    h *= P3;
    h ^= h >>> 32;
    return h;
  }

  @Override
  public String hex() {
    String s = Long.toHexString(value());
    return "0".repeat(16 - s.length()) + s;
  }
}
