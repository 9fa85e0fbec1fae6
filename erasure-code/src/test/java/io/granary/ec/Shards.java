package io.granary.ec;

import java.nio.ByteBuffer;
import java.util.Random;

/** Test shards: deterministic random bytes, in heap or direct buffers. */
final class Shards {
  private Shards() {}

  static ByteBuffer[] random(int count, int length, long seed, boolean direct) {
    Random random = new Random(seed);
    ByteBuffer[] shards = new ByteBuffer[count];
    for (int i = 0; i < count; i++) {
      byte[] bytes = new byte[length];
      random.nextBytes(bytes);
      shards[i] = wrap(bytes, direct);
    }
    return shards;
  }

  static ByteBuffer[] empty(int count, int length, boolean direct) {
    ByteBuffer[] shards = new ByteBuffer[count];
    for (int i = 0; i < count; i++) {
      shards[i] = direct ? ByteBuffer.allocateDirect(length) : ByteBuffer.allocate(length);
    }
    return shards;
  }

  static ByteBuffer wrap(byte[] bytes, boolean direct) {
    if (!direct) {
      return ByteBuffer.wrap(bytes.clone());
    }
    ByteBuffer b = ByteBuffer.allocateDirect(bytes.length);
    b.put(bytes).flip();
    return b;
  }

  static byte[] bytes(ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.duplicate().get(out);
    return out;
  }

  /** Parity by the definition, one byte and one multiplication at a time: the reference for the fast kernel. */
  static byte[][] referenceParity(int data, int parity, byte[][] dataShards) {
    int[][] matrix = Matrix.encoding(data, data + parity);
    int length = dataShards[0].length;
    byte[][] out = new byte[parity][length];
    for (int p = 0; p < parity; p++) {
      for (int j = 0; j < length; j++) {
        int v = 0;
        for (int i = 0; i < data; i++) {
          v ^= Galois.mul(matrix[data + p][i], dataShards[i][j]);
        }
        out[p][j] = (byte) v;
      }
    }
    return out;
  }
}
