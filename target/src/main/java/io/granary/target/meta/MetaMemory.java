package io.granary.target.meta;

import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.IndexType;
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
 *   <li>a bloom filter (10 bits a key) answers most lookups of keys that are not there without reading a block;</li>
 *   <li>index and filters are partitioned, so what a lookup reads stays a few KiB as the store grows, and are kept
 *       ahead of data blocks (half the cache is reserved for them); the cache has 16 shards.</li>
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
  /**
   * 2^4 cache shards of 2 MiB. RocksDB's default for 32 MiB is 64 shards of 512 KiB, and a block larger than its
   * shard is never kept: a table's whole filter and index blocks (3 and 1 MiB in each 65 MiB table at 10 million
   * records) were read again from the file, and parsed, by every lookup (bench/fill.sh: 1.2 ms of CPU and 3.6 MiB
   * read per GET). Index and filters are partitioned below, so no block comes near a shard's size.
   */
  private static final int CACHE_SHARD_BITS = 4;
  /** Share of the cache kept for index and filter blocks, which every lookup reads, ahead of data blocks. */
  private static final double INDEX_AND_FILTER_SHARE = 0.5;
  /** Bytes of an index or filter partition: one cache entry each, read as a lookup needs it. */
  private static final long PARTITION_BYTES = 4L << 10;

  private final LRUCache cache = new LRUCache(CACHE_BYTES, CACHE_SHARD_BITS, false, INDEX_AND_FILTER_SHARE);
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
        .setCacheIndexAndFilterBlocksWithHighPriority(true)
        .setPinL0FilterAndIndexBlocksInCache(true)
        // Partitioned: a small top-level index (pinned) points at index and filter partitions of
        // PARTITION_BYTES, cached and evicted one by one, so a lookup reads a few KiB, not a table's whole index
        // and filter, however many records the table holds.
        .setIndexType(IndexType.kTwoLevelIndexSearch)
        .setPartitionFilters(true)
        .setMetadataBlockSize(PARTITION_BYTES)
        .setPinTopLevelIndexAndFilter(true);
    return new ColumnFamilyOptions().setWriteBufferSize(WRITE_BUFFER_BYTES).setTableFormatConfig(table);
  }

  @Override
  public void close() {
    filter.close();
    memtables.close();
    cache.close();
  }
}
