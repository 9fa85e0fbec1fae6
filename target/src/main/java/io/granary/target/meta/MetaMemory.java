package io.granary.target.meta;

import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.WriteBufferManager;

/**
 * The memory one metadata store may hold, bounded. RocksDB's defaults give every column family memtables of 64 MiB
 * (two before writes stall) and a block cache of its own, so the eleven column families of each mountpath's store
 * could grow under writes to far more than a target should hold, with nothing to set it by. Here:
 *
 * <ul>
 *   <li>one block cache of {@link #CACHE_BYTES} per store holds its data, index and filter blocks (index and
 *       filter blocks count against it instead of living outside any bound; level-0 ones are pinned, as the
 *       newest files are read most);</li>
 *   <li>all its memtables together stay within {@link #MEMTABLE_BYTES}: a write-buffer manager flushes the largest
 *       when they reach it, and writes wait for the flush rather than pass it (back-pressure on a burst of
 *       commits, never unbounded memory); they are charged to the same cache, so blocks and memtables share
 *       {@link #CACHE_BYTES};</li>
 *   <li>a memtable is flushed at {@link #WRITE_BUFFER_BYTES};</li>
 *   <li>a bloom filter (10 bits a key) answers most lookups of keys that are not there without reading a block.</li>
 * </ul>
 *
 * <p>So a target holds at most {@link #CACHE_BYTES} of RocksDB memory per mountpath, plus RocksDB's small fixed
 * structures (docs/config.md, "Memory"). Closed after the store's database.
 */
final class MetaMemory implements AutoCloseable {
  static final long CACHE_BYTES = 32L << 20;
  static final long MEMTABLE_BYTES = 16L << 20;
  static final long WRITE_BUFFER_BYTES = 4L << 20;
  private static final double BLOOM_BITS_PER_KEY = 10;

  private final LRUCache cache = new LRUCache(CACHE_BYTES);
  private final WriteBufferManager memtables = new WriteBufferManager(MEMTABLE_BYTES, cache, true);
  private final BloomFilter filter = new BloomFilter(BLOOM_BITS_PER_KEY);

  /** Options for the database; the caller closes them. */
  DBOptions dbOptions() {
    return new DBOptions().setWriteBufferManager(memtables);
  }

  /** Options for every column family; the caller closes them. */
  ColumnFamilyOptions columnOptions() {
    BlockBasedTableConfig table = new BlockBasedTableConfig()
        .setBlockCache(cache)
        .setFilterPolicy(filter)
        .setCacheIndexAndFilterBlocks(true)
        .setPinL0FilterAndIndexBlocksInCache(true);
    return new ColumnFamilyOptions().setWriteBufferSize(WRITE_BUFFER_BYTES).setTableFormatConfig(table);
  }

  @Override
  public void close() {
    filter.close();
    memtables.close();
    cache.close();
  }
}
