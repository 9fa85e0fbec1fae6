package io.granary.ec;

import java.nio.ByteBuffer;
import java.util.Locale;
import java.util.function.IntSupplier;

/**
 * The Java side of {@code bench/ec.sh}, kept in test scope (not part of the product): times
 * {@link ReedSolomon#encode} and a reconstruction of the first P data shards from the others on one set of direct
 * shards, on the calling thread, each for at least the given seconds after a warm-up, and prints one JSON line
 * with MB/s of data (10^6 bytes of the D data shards per second), as {@code bench/ec}'s {@code ecref bench} does.
 *
 * <p>{@code java -cp ... io.granary.ec.CodecBench DATA PARITY SHARD_BYTES SECONDS}
 */
public final class CodecBench {
  private CodecBench() {}

  public static void main(String[] args) {
    int data = Integer.parseInt(args[0]);
    int parity = Integer.parseInt(args[1]);
    int shardBytes = Integer.parseInt(args[2]);
    double seconds = Double.parseDouble(args[3]);
    ReedSolomon rs = ReedSolomon.of(data, parity);
    ByteBuffer[] shards = Shards.random(data + parity, shardBytes, 1, true);
    ByteBuffer[] dataShards = java.util.Arrays.copyOf(shards, data);
    ByteBuffer[] parityShards = java.util.Arrays.copyOfRange(shards, data, data + parity);
    boolean[] present = new boolean[data + parity];
    java.util.Arrays.fill(present, parity, data + parity, true); // data shards 0..P-1 lost, rebuilt in place
    rs.encode(dataShards, parityShards);
    ByteBuffer[] decodeSlots = shards.clone();
    double dataBytes = (double) data * shardBytes;
    double encode = measure(() -> {
      rs.encode(dataShards, parityShards);
      return 1;
    }, dataBytes, seconds);
    double decode = measure(() -> {
      rs.reconstruct(decodeSlots, present);
      return 1;
    }, dataBytes, seconds);
    if (!rs.verify(shards)) {
      throw new AssertionError("shards inconsistent after the decode runs");
    }
    System.out.printf(Locale.ROOT, "{\"impl\":\"granary\",\"data\":%d,\"parity\":%d,\"shard_bytes\":%d,"
        + "\"encode_mb_s\":%.1f,\"decode_mb_s\":%.1f,\"java\":\"%s\"}%n", data, parity, shardBytes, encode, decode,
        System.getProperty("java.version"));
  }

  private static double measure(IntSupplier op, double dataBytes, double seconds) {
    long warmEnd = System.nanoTime() + (long) (seconds / 3 * 1e9);
    while (System.nanoTime() < warmEnd) {
      op.getAsInt();
    }
    long start = System.nanoTime();
    long end = start + (long) (seconds * 1e9);
    long n = 0;
    while (System.nanoTime() < end) {
      n += op.getAsInt();
    }
    double elapsed = (System.nanoTime() - start) / 1e9;
    return dataBytes * n / elapsed / 1e6;
  }
}
