package io.granary.ec;

/**
 * Where an object's bytes go when it is encoded stripe by stripe. A stripe is D cells of {@code cellSize} bytes:
 * object bytes {@code [s·D·cell, (s+1)·D·cell)} fill stripe s, cell k going to data shard k, so every shard is the
 * concatenation of its cells. The last, partial stripe has smaller cells of {@code ceil(tail / D)} bytes, the
 * last of them zero-padded: a shard never carries more than one byte of padding per stripe beyond the object
 * (rather than up to a whole cell, which would store megabytes for a small object with 1 MiB cells).
 *
 * <p>Shards hold no header: to decode, the caller records the object size, D, P and the cell size.
 *
 * @param dataShards D
 * @param cellSize bytes per cell of a full stripe
 * @param objectSize the object's size in bytes
 */
public record StripeLayout(int dataShards, int cellSize, long objectSize) {

  public StripeLayout {
    if (dataShards < 1 || cellSize < 1 || objectSize < 0) {
      throw new IllegalArgumentException("invalid stripe layout: " + dataShards + " data shards, cells of "
          + cellSize + " bytes, object of " + objectSize + " bytes");
    }
    if ((long) dataShards * cellSize > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("a stripe of " + dataShards + " cells of " + cellSize
          + " bytes exceeds 2 GiB");
    }
  }

  /** Object bytes in a full stripe. */
  public int stripeSize() {
    return dataShards * cellSize;
  }

  /** Stripes with full cells. */
  public long fullStripes() {
    return objectSize / stripeSize();
  }

  /** Object bytes in the last, partial stripe; 0 when there is none. */
  public int tailBytes() {
    return (int) (objectSize % stripeSize());
  }

  /** Cell size of the partial stripe: {@code ceil(tailBytes / D)}, 0 when there is none. */
  public int tailCellSize() {
    return (tailBytes() + dataShards - 1) / dataShards;
  }

  /** All stripes, the partial one included. */
  public long stripes() {
    return fullStripes() + (tailBytes() > 0 ? 1 : 0);
  }

  /** Bytes in every shard, data or parity. */
  public long shardSize() {
    return fullStripes() * cellSize + tailCellSize();
  }

  /** Cell size of stripe {@code s}. */
  public int cellSize(long stripe) {
    return stripe < fullStripes() ? cellSize : tailCellSize();
  }

  /** Object bytes in stripe {@code s}. */
  public int objectBytes(long stripe) {
    return stripe < fullStripes() ? stripeSize() : tailBytes();
  }
}
