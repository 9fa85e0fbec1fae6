package io.granary.cli;

import java.util.Properties;

/**
 * Sizes Netty's pooled allocator for a storage node, before Netty first reads its settings. Netty's default of two
 * arenas per core suits its default of two event loops per core; a node runs one per core, and each arena that has
 * served a buffer holds at least one 4 MiB chunk: 16 MiB of direct memory on two cores (128 MiB on sixteen) while
 * idle. So a node uses one arena per core. The 4 MiB chunks stay: with 1 MiB chunks an idle node held 2 MiB, but an
 * emptied chunk is freed and a new one zeroed so often that 64 KiB PUTs ran at 0.80× and cost the target 80 CPU-s
 * per GiB against 62 (bench/put.sh, one A/B of three rounds). A setting given with {@code -D} is kept.
 */
final class BufferPoolDefaults {
  static final String DIRECT_ARENAS = "io.netty.allocator.numDirectArenas";
  static final String HEAP_ARENAS = "io.netty.allocator.numHeapArenas";

  private BufferPoolDefaults() {}

  /** Sets one arena per processor in {@code props} for {@code cores} processors, unless set already. */
  static void apply(Properties props, int cores) {
    String arenas = String.valueOf(Math.max(1, cores));
    props.putIfAbsent(DIRECT_ARENAS, arenas);
    props.putIfAbsent(HEAP_ARENAS, arenas);
  }
}
