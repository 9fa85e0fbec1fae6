package io.granary.ec;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * A systematic Reed-Solomon code over GF(2^8): D data shards are stored as they are, P parity shards are computed
 * from them, and any D of the D+P shards rebuild all the others. The encoding matrix is klauspost/reedsolomon's
 * default (see {@link Matrix#encoding}), so parity is byte-identical to klauspost's (and AIStore's) for the same
 * data; {@code bench/ec} generates the test vectors that check it.
 *
 * <p>Shards are {@link ByteBuffer}s, heap or direct, read and written between their position and limit, which the
 * codec leaves unchanged. All shards of one call have the same length (remaining bytes), any length: callers
 * stream an object through the codec slice by slice ({@link StripeEncoder}, {@link StripeDecoder}).
 *
 * <p>Immutable and thread-safe; a call touches only the buffers it is given and scratch space of its own.
 */
public final class ReedSolomon {
  /** GF(2^8) has 256 elements, so at most 256 shards have independent rows. */
  public static final int MAX_SHARDS = 256;

  private final int dataShards;
  private final int parityShards;
  private final int[][] encoding;
  private final GfKernel parityKernel;

  private ReedSolomon(int dataShards, int parityShards) {
    this.dataShards = dataShards;
    this.parityShards = parityShards;
    this.encoding = Matrix.encoding(dataShards, dataShards + parityShards);
    this.parityKernel = new GfKernel(Arrays.copyOfRange(encoding, dataShards, encoding.length), dataShards);
  }

  /**
   * A D+P code.
   *
   * @throws IllegalArgumentException unless 1 ≤ D, 1 ≤ P and D+P ≤ 256
   */
  public static ReedSolomon of(int dataShards, int parityShards) {
    if (dataShards < 1 || parityShards < 1 || dataShards + parityShards > MAX_SHARDS) {
      throw new IllegalArgumentException("erasure code " + dataShards + "+" + parityShards
          + " is invalid: need at least 1 data and 1 parity shard and at most " + MAX_SHARDS + " in all");
    }
    return new ReedSolomon(dataShards, parityShards);
  }

  public int dataShards() {
    return dataShards;
  }

  public int parityShards() {
    return parityShards;
  }

  public int totalShards() {
    return dataShards + parityShards;
  }

  /**
   * Computes the parity shards of the given data shards.
   *
   * @param data D buffers, each with the same number of bytes remaining (the shard length)
   * @param parity P buffers with that many bytes remaining, overwritten with parity
   * @throws IllegalArgumentException on a wrong count, a null, or a length that differs
   */
  public void encode(ByteBuffer[] data, ByteBuffer[] parity) {
    checkCount("data shards", data, dataShards);
    checkCount("parity shards", parity, parityShards);
    int length = data[0].remaining();
    checkLengths(data, length);
    checkLengths(parity, length);
    parityKernel.apply(data, parity, length);
  }

  /**
   * Rebuilds the missing shards in place.
   *
   * @param shards D+P slots in shard order (data then parity); every non-null buffer has the same number of bytes
   *     remaining
   * @param present which slots hold their shard's bytes. A slot that is not present is rebuilt into its buffer;
   *     one that is not present and null is neither read nor written (pass null for parity you do not need)
   * @throws NotEnoughShardsException when fewer than D slots are present
   * @throws IllegalArgumentException on a wrong count, a present slot that is null, or a length that differs
   */
  public void reconstruct(ByteBuffer[] shards, boolean[] present) {
    checkSlots(shards, present);
    boolean[] wanted = new boolean[shards.length];
    int length = -1;
    for (int s = 0; s < shards.length; s++) {
      wanted[s] = !present[s] && shards[s] != null;
      if (shards[s] != null) {
        length = length < 0 ? shards[s].remaining() : length;
        if (shards[s].remaining() != length) {
          throw new IllegalArgumentException("shards differ in length: shard " + s + " has "
              + shards[s].remaining() + " bytes, an earlier one " + length);
        }
      }
    }
    RebuildPlan plan = RebuildPlan.of(encoding, present, wanted);
    if (plan.outputs().length > 0) {
      rebuild(plan, shards, length);
    }
  }

  /**
   * Rebuilds the missing shards, given as null slots, into new buffers of the shards' length (direct when the
   * first present shard is direct) that it puts in those slots.
   *
   * @throws NotEnoughShardsException when more than P slots are null
   */
  public void reconstruct(ByteBuffer[] shards) {
    checkCount("shards", shards.length, totalShards());
    boolean[] present = new boolean[shards.length];
    ByteBuffer first = null;
    int count = 0;
    for (int s = 0; s < shards.length; s++) {
      present[s] = shards[s] != null;
      if (present[s]) {
        count++;
        first = first == null ? shards[s] : first;
      }
    }
    if (count < dataShards) {
      throw new NotEnoughShardsException(count, dataShards, totalShards());
    }
    for (int s = 0; s < shards.length; s++) {
      if (shards[s] == null) {
        shards[s] = first.isDirect()
            ? ByteBuffer.allocateDirect(first.remaining())
            : ByteBuffer.allocate(first.remaining());
      }
    }
    reconstruct(shards, present);
  }

  /**
   * Whether the parity shards match the data shards.
   *
   * @param shards D+P buffers of equal length, none null
   */
  public boolean verify(ByteBuffer[] shards) {
    checkCount("shards", shards.length, totalShards());
    ByteBuffer[] data = Arrays.copyOfRange(shards, 0, dataShards);
    ByteBuffer[] computed = new ByteBuffer[parityShards];
    for (int p = 0; p < parityShards; p++) {
      computed[p] = ByteBuffer.allocate(shards[0].remaining());
    }
    encode(data, computed);
    for (int p = 0; p < parityShards; p++) {
      ByteBuffer stored = shards[dataShards + p];
      if (stored == null || !stored.equals(computed[p])) {
        return false;
      }
    }
    return true;
  }

  /** A plan for rebuilding {@code wanted} from {@code available}: for callers that rebuild stripe after stripe. */
  RebuildPlan plan(boolean[] available, boolean[] wanted) {
    return RebuildPlan.of(encoding, available, wanted);
  }

  /** Runs a plan: reads its inputs' slots, writes its outputs' slots, {@code length} bytes each. */
  static void rebuild(RebuildPlan plan, ByteBuffer[] shards, int length) {
    ByteBuffer[] in = new ByteBuffer[plan.inputs().length];
    for (int k = 0; k < in.length; k++) {
      in[k] = shards[plan.inputs()[k]];
    }
    ByteBuffer[] out = new ByteBuffer[plan.outputs().length];
    for (int k = 0; k < out.length; k++) {
      out[k] = shards[plan.outputs()[k]];
    }
    plan.kernel().apply(in, out, length);
  }

  private void checkSlots(ByteBuffer[] shards, boolean[] present) {
    checkCount("shards", shards.length, totalShards());
    checkCount("present flags", present.length, totalShards());
    for (int s = 0; s < shards.length; s++) {
      if (present[s] && shards[s] == null) {
        throw new IllegalArgumentException("shard " + s + " is flagged present but is null");
      }
    }
  }

  private static void checkCount(String what, ByteBuffer[] buffers, int expected) {
    checkCount(what, buffers.length, expected);
    for (int i = 0; i < buffers.length; i++) {
      if (buffers[i] == null) {
        throw new IllegalArgumentException("slot " + i + " of the " + what + " is null");
      }
    }
  }

  private static void checkCount(String what, int count, int expected) {
    if (count != expected) {
      throw new IllegalArgumentException("expected " + expected + " " + what + ", got " + count);
    }
  }

  private static void checkLengths(ByteBuffer[] buffers, int length) {
    for (int i = 0; i < buffers.length; i++) {
      if (buffers[i].remaining() != length) {
        throw new IllegalArgumentException("shards differ in length: " + buffers[i].remaining() + " and " + length);
      }
    }
  }

  @Override
  public String toString() {
    return "ReedSolomon[" + dataShards + "+" + parityShards + "]";
  }
}
