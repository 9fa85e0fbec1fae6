/** Bounded pools for blocking work (disk syncs, RocksDB writes), so event loops never block and queues never grow without limit. */
package io.granary.common.exec;
