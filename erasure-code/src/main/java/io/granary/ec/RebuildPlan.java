package io.granary.ec;

import java.util.Arrays;

/**
 * How to rebuild a set of shards from D others: which shards are read ({@code inputs}, D of them), which are
 * written ({@code outputs}), and the kernel holding one row per output. Made once per loss pattern, so a stream
 * rebuilding stripe after stripe inverts its matrix only once.
 *
 * @param inputs the D shard indexes read, ascending: the first D available, data shards first
 * @param outputs the shard indexes written
 * @param kernel {@code out[k] = row[k] · in}: for a data shard, its row of the inverted sub-matrix; for a parity
 *     shard, its encoding row times that inverse
 */
record RebuildPlan(int[] inputs, int[] outputs, GfKernel kernel) {

  /**
   * @param encoding the (D+P) × D encoding matrix
   * @param available which shards can be read
   * @param wanted which shards to write (none of them available)
   * @throws NotEnoughShardsException when fewer than D shards are available
   */
  static RebuildPlan of(int[][] encoding, boolean[] available, boolean[] wanted) {
    int total = encoding.length;
    int data = encoding[0].length;
    int[] inputs = new int[data];
    int found = 0;
    for (int s = 0; s < total && found < data; s++) {
      if (available[s]) {
        inputs[found++] = s;
      }
    }
    if (found < data) {
      int count = 0;
      for (boolean a : available) {
        count += a ? 1 : 0;
      }
      throw new NotEnoughShardsException(count, data, total);
    }
    int[][] subMatrix = new int[data][];
    for (int r = 0; r < data; r++) {
      subMatrix[r] = encoding[inputs[r]];
    }
    int[][] decode = Matrix.invert(subMatrix);
    int[] outputs = new int[total];
    int n = 0;
    for (int s = 0; s < total; s++) {
      if (wanted[s]) {
        if (available[s]) {
          throw new IllegalArgumentException("shard " + s + " is both available and to be rebuilt");
        }
        outputs[n++] = s;
      }
    }
    outputs = Arrays.copyOf(outputs, n);
    int[][] rows = new int[n][];
    for (int k = 0; k < n; k++) {
      rows[k] = Matrix.multiply(new int[][] {encoding[outputs[k]]}, decode)[0];
    }
    return new RebuildPlan(inputs, outputs, new GfKernel(rows, data));
  }
}
