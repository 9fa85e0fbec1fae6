package io.granary.ec;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;

/**
 * Writes an object back from any D of its D+P shards, stripe by stripe ({@link StripeLayout}), rebuilding missing
 * data cells as it goes and, on request, lost shards too (the repair that follows a rebuild). With all data shards
 * at hand it only copies. Memory per call: (D + rebuilt shards) × cellSize bytes of direct buffers.
 *
 * <p>Runs on the caller's thread with blocking channels; the channels are neither closed nor flushed. Thread-safe:
 * each call has its own buffers.
 */
public final class StripeDecoder {
  private final ReedSolomon codec;
  private final int cellSize;

  /**
   * @param cellSize the cell size the object was encoded with
   */
  public StripeDecoder(ReedSolomon codec, int cellSize) {
    new StripeLayout(codec.dataShards(), cellSize, 0); // validates cellSize
    this.codec = codec;
    this.cellSize = cellSize;
  }

  /**
   * Same as {@link #decode(ReadableByteChannel[], long, WritableByteChannel, WritableByteChannel[])} with no
   * shard to repair.
   */
  public void decode(ReadableByteChannel[] shards, long objectSize, WritableByteChannel object) throws IOException {
    decode(shards, objectSize, object, new WritableByteChannel[shards.length]);
  }

  /**
   * Writes exactly {@code objectSize} bytes to {@code object}.
   *
   * @param shards D+P slots, null where a shard is missing; the first D non-null ones (data shards first) are
   *     read, {@link StripeLayout#shardSize()} bytes each
   * @param repairs D+P slots: a non-null one receives its shard's bytes, rebuilt; only for slots null in
   *     {@code shards}
   * @throws NotEnoughShardsException when fewer than D shards are given (before anything is read or written)
   * @throws EOFException when a shard ends before its size
   */
  public void decode(ReadableByteChannel[] shards, long objectSize, WritableByteChannel object,
      WritableByteChannel[] repairs) throws IOException {
    int data = codec.dataShards();
    int total = codec.totalShards();
    if (shards.length != total || repairs.length != total) {
      throw new IllegalArgumentException("expected " + total + " shard and repair slots, got " + shards.length
          + " and " + repairs.length);
    }
    StripeLayout layout = new StripeLayout(data, cellSize, objectSize);
    boolean[] read = new boolean[total];
    boolean[] written = new boolean[total];
    int chosen = 0;
    int given = 0;
    for (int s = 0; s < total; s++) {
      if (shards[s] != null) {
        given++;
        read[s] = chosen < data;
        chosen += read[s] ? 1 : 0;
      }
      if (repairs[s] != null && shards[s] != null) {
        throw new IllegalArgumentException("shard " + s + " is given; only a missing shard can be repaired");
      }
      written[s] = !read[s] && (s < data || repairs[s] != null);
    }
    if (given < data) {
      throw new NotEnoughShardsException(given, data, total);
    }
    RebuildPlan plan = needsRebuild(written) ? codec.plan(read, written) : null;
    ByteBuffer[] cells = new ByteBuffer[total];
    ByteBuffer[] areas = new ByteBuffer[total];
    for (int s = 0; s < total; s++) {
      if (read[s] || written[s]) {
        areas[s] = ByteBuffer.allocateDirect(cellSize);
      }
    }
    long left = objectSize;
    for (long stripe = 0; stripe < layout.stripes(); stripe++) {
      int cell = layout.cellSize(stripe);
      for (int s = 0; s < total; s++) {
        if (areas[s] != null) {
          cells[s] = areas[s].slice(0, cell);
        }
        if (read[s] && ChannelIo.readFully(shards[s], cells[s]) < cell) {
          throw new EOFException("shard " + s + " ended in stripe " + stripe + " of " + layout.stripes()
              + " (expected " + layout.shardSize() + " bytes for an object of " + objectSize + ")");
        }
        if (read[s]) {
          cells[s].flip();
        }
      }
      if (plan != null) {
        ReedSolomon.rebuild(plan, cells, cell);
      }
      for (int k = 0; k < data && left > 0; k++) {
        ByteBuffer out = cells[k].duplicate();
        out.limit((int) Math.min(cell, left));
        left -= out.remaining();
        ChannelIo.writeFully(object, out);
      }
      for (int s = 0; s < total; s++) {
        if (repairs[s] != null) {
          ChannelIo.writeFully(repairs[s], cells[s].duplicate());
        }
      }
    }
  }

  private static boolean needsRebuild(boolean[] written) {
    for (boolean w : written) {
      if (w) {
        return true;
      }
    }
    return false;
  }
}
