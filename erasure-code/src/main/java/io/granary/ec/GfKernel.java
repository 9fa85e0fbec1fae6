package io.granary.ec;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.LongBuffer;

/**
 * The hot loop: {@code out[o] = Σ rows[o][i] · in[i]} over GF(2^8), byte by byte across equal-length shards. Encoding
 * is this with the parity rows of the encoding matrix; reconstruction with rows of an inverted sub-matrix.
 *
 * <p>Design. Each output is computed by Horner's rule over the bits of its coefficients, eight bytes to a long:
 * for bit k from the highest down, {@code acc = 2·acc ⊕ (⊕ of the inputs whose coefficient has bit k)}, where
 * {@code 2·acc} is {@link Galois#times2} on eight packed bytes (shifts, masks and XORs; the "xtime" of AES, see
 * Anvin, "The mathematics of RAID-6", 2011, §3). A pass is a plain loop over {@code long[]} with no table
 * lookup and no branch, which C2 turns into AVX2/AVX-512 instructions without the incubating Vector API; a
 * table-per-byte kernel cannot be vectorised that way. Work proceeds in chunks of {@value #CHUNK_LONGS} longs, so
 * the staged inputs and the accumulator stay in the L1 cache: D inputs are copied in once per chunk (a bulk copy
 * for direct buffers), each output costs at most eight fused passes. Bytes past the last whole long go through the
 * 64 KiB multiplication table.
 *
 * <p>Immutable and thread-safe; scratch arrays belong to each call.
 */
final class GfKernel {
  /** Longs per chunk: 2 KiB per staged input, so 10 inputs and the accumulator fit in a 32 KiB L1 cache. */
  static final int CHUNK_LONGS = 256;

  private final int[][] rows;
  private final int inputs;
  /** sources[o][k]: the inputs whose coefficient in row o has bit k set. */
  private final int[][][] sources;
  /** topBit[o]: the highest bit set in any coefficient of row o, -1 for a zero row. */
  private final int[] topBit;

  GfKernel(int[][] rows, int inputs) {
    this.rows = rows;
    this.inputs = inputs;
    this.sources = new int[rows.length][8][];
    this.topBit = new int[rows.length];
    for (int o = 0; o < rows.length; o++) {
      if (rows[o].length != inputs) {
        throw new IllegalArgumentException("row " + o + " has " + rows[o].length + " coefficients, not " + inputs);
      }
      topBit[o] = -1;
      for (int k = 0; k < 8; k++) {
        int count = 0;
        for (int c : rows[o]) {
          count += (c >>> k) & 1;
        }
        int[] list = new int[count];
        int n = 0;
        for (int i = 0; i < inputs; i++) {
          if (((rows[o][i] >>> k) & 1) != 0) {
            list[n++] = i;
          }
        }
        sources[o][k] = list;
        if (count > 0) {
          topBit[o] = k;
        }
      }
    }
  }

  /**
   * Writes {@code length} bytes at each output's position from {@code length} bytes at each input's position.
   * Positions and limits are left as they are. Outputs must not overlap inputs.
   */
  void apply(ByteBuffer[] in, ByteBuffer[] out, int length) {
    int longs = length >>> 3;
    if (longs > 0) {
      applyLongs(in, out, longs);
    }
    for (int j = longs << 3; j < length; j++) {
      applyByte(in, out, j);
    }
  }

  private void applyLongs(ByteBuffer[] in, ByteBuffer[] out, int longs) {
    LongBuffer[] inViews = new LongBuffer[inputs];
    for (int i = 0; i < inputs; i++) {
      inViews[i] = longView(in[i], longs);
    }
    LongBuffer[] outViews = new LongBuffer[rows.length];
    for (int o = 0; o < rows.length; o++) {
      outViews[o] = longView(out[o], longs);
    }
    long[][] staged = new long[inputs][CHUNK_LONGS];
    long[] acc = new long[CHUNK_LONGS];
    for (int off = 0; off < longs; off += CHUNK_LONGS) {
      int len = Math.min(CHUNK_LONGS, longs - off);
      for (int i = 0; i < inputs; i++) {
        inViews[i].get(off, staged[i], 0, len);
      }
      for (int o = 0; o < rows.length; o++) {
        horner(o, staged, acc, len);
        outViews[o].put(off, acc, 0, len);
      }
    }
  }

  private static LongBuffer longView(ByteBuffer b, int longs) {
    // Byte order is irrelevant to lane-wise arithmetic as long as reads and writes agree; native order makes the
    // bulk copies plain memory copies.
    return b.slice(b.position(), longs << 3).order(ByteOrder.nativeOrder()).asLongBuffer();
  }

  private void horner(int o, long[][] staged, long[] acc, int len) {
    int top = topBit[o];
    if (top < 0) {
      java.util.Arrays.fill(acc, 0, len, 0L);
      return;
    }
    Passes.xorSources(acc, staged, sources[o][top], false, len);
    for (int k = top - 1; k >= 0; k--) {
      Passes.xorSources(acc, staged, sources[o][k], true, len);
    }
  }

  private void applyByte(ByteBuffer[] in, ByteBuffer[] out, int j) {
    for (int o = 0; o < rows.length; o++) {
      int v = 0;
      for (int i = 0; i < inputs; i++) {
        v ^= Galois.mulTable(rows[o][i])[in[i].get(in[i].position() + j) & 0xFF];
      }
      out[o].put(out[o].position() + j, (byte) v);
    }
  }
}
