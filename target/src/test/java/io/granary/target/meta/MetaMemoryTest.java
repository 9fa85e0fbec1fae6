package io.granary.target.meta;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A store's RocksDB memory stays within {@link MetaMemory}'s bounds however much is written. */
class MetaMemoryTest {
  @TempDir
  Path dir;

  @Test
  void writingFarMoreThanTheMemtableBudget_keepsMemtablesWithinIt_andTheCacheAtItsCapacity() throws Exception {
    try (MetaStore store = MetaStore.open(dir.resolve("meta"))) {
      assertThat(store.memoryUse().cacheCapacity()).isEqualTo(MetaMemory.CACHE_BYTES);
      // ~48 MiB of access times in unsynced batches: three times the memtable budget. With RocksDB's defaults
      // (64 MiB memtables per column family) all of it would still be in memory.
      String pad = "x".repeat(100);
      for (int batch = 0; batch < 48; batch++) {
        Map<String, Long> atimes = new HashMap<>();
        for (int i = 0; i < 9_000; i++) {
          atimes.put("ais/bucket/id1/" + pad + "/" + batch + "/" + i, i + 1L);
        }
        store.putAtimes(atimes);
      }
      MetaStore.MemoryUse use = store.memoryUse();
      // Writes wait for flushes at the budget; the memtable being written and one being flushed may pass it.
      assertThat(use.memtables()).as("%s", use)
          .isLessThanOrEqualTo(MetaMemory.MEMTABLE_BYTES + 2 * MetaMemory.WRITE_BUFFER_BYTES);
      assertThat(use.cache()).isLessThanOrEqualTo(use.cacheCapacity() + MetaMemory.WRITE_BUFFER_BYTES);
      // and everything written reads back
      assertThat(store.atime("ais/bucket/id1/" + pad + "/0/0")).isEqualTo(1);
      assertThat(store.atime("ais/bucket/id1/" + pad + "/47/8999")).isEqualTo(9000);
    }
  }
}
