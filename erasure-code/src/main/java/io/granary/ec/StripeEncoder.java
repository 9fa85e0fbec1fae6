package io.granary.ec;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;

/**
 * Encodes an object read from a channel into D+P shard channels, stripe by stripe ({@link StripeLayout}): the
 * object is never held whole; memory per call is (D+P) × cellSize bytes of direct buffers.
 *
 * <p>Runs on the caller's thread with blocking channels; the channels are neither closed nor flushed. Thread-safe:
 * each call has its own buffers.
 */
public final class StripeEncoder {
  private final ReedSolomon codec;
  private final int cellSize;

  /**
   * @param cellSize bytes per cell of a full stripe, e.g. 64 KiB or 1 MiB
   */
  public StripeEncoder(ReedSolomon codec, int cellSize) {
    new StripeLayout(codec.dataShards(), cellSize, 0); // validates cellSize
    this.codec = codec;
    this.cellSize = cellSize;
  }

  /**
   * Reads {@code object} to its end and writes shard k's bytes to {@code shards[k]} (data shards, then parity).
   * Each shard receives {@link StripeLayout#shardSize()} bytes for the returned object size.
   *
   * @param shards D+P channels, none null
   * @return the object's size: record it, the decoder needs it
   */
  public long encode(ReadableByteChannel object, WritableByteChannel[] shards) throws IOException {
    int data = codec.dataShards();
    int parity = codec.parityShards();
    if (shards.length != data + parity) {
      throw new IllegalArgumentException("expected " + (data + parity) + " shard channels, got " + shards.length);
    }
    for (int s = 0; s < shards.length; s++) {
      if (shards[s] == null) {
        throw new IllegalArgumentException("shard channel " + s + " is null");
      }
    }
    ByteBuffer stripe = ByteBuffer.allocateDirect(data * cellSize);
    ByteBuffer parityArea = ByteBuffer.allocateDirect(parity * cellSize);
    ByteBuffer[] dataCells = new ByteBuffer[data];
    ByteBuffer[] parityCells = new ByteBuffer[parity];
    long size = 0;
    while (true) {
      stripe.clear();
      int n = ChannelIo.readFully(object, stripe);
      size += n;
      if (n == 0) {
        return size;
      }
      int cell = n == stripe.capacity() ? cellSize : (n + data - 1) / data;
      for (int i = n; i < data * cell; i++) {
        stripe.put(i, (byte) 0);
      }
      for (int k = 0; k < data; k++) {
        dataCells[k] = stripe.slice(k * cell, cell);
      }
      for (int p = 0; p < parity; p++) {
        parityCells[p] = parityArea.slice(p * cell, cell);
      }
      codec.encode(dataCells, parityCells);
      for (int k = 0; k < data; k++) {
        ChannelIo.writeFully(shards[k], dataCells[k]);
      }
      for (int p = 0; p < parity; p++) {
        ChannelIo.writeFully(shards[data + p], parityCells[p]);
      }
      if (n < stripe.capacity()) {
        return size;
      }
    }
  }
}
