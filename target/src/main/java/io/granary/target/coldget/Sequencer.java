package io.granary.target.coldget;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.Map;
import java.util.TreeMap;

/**
 * Turns pieces written to a work file in any order (parallel ranged reads) into an in-order stream: it tracks
 * which ranges are on disk, and whenever the contiguous prefix grows it hashes the new bytes (read back from the
 * page cache) and lets clients have them.
 */
final class Sequencer {
  private static final int HASH_BUFFER = 256 << 10;
  private static final ThreadLocal<ByteBuffer> BUFFER = ThreadLocal.withInitial(
      () -> ByteBuffer.allocateDirect(HASH_BUFFER));

  private final FileChannel file;
  private final long size;
  private final ContentVerifier verifier;
  private final Fetch fetch;
  private final TreeMap<Long, Long> pending = new TreeMap<>(); // start -> end of ranges beyond the prefix
  private long contiguous;

  Sequencer(FileChannel file, long size, ContentVerifier verifier, Fetch fetch) {
    this.file = file;
    this.size = size;
    this.verifier = verifier;
    this.fetch = fetch;
  }

  /** Records that {@code [offset, offset + length)} is on disk; hashes and publishes what became contiguous. */
  synchronized void completed(long offset, long length) throws IOException {
    long end = offset + length;
    if (offset > contiguous) {
      pending.merge(offset, end, Math::max);
      return;
    }
    long from = contiguous;
    contiguous = Math.max(contiguous, end);
    for (Map.Entry<Long, Long> e = pending.firstEntry(); e != null && e.getKey() <= contiguous;
        e = pending.firstEntry()) {
      contiguous = Math.max(contiguous, e.getValue());
      pending.pollFirstEntry();
    }
    hash(from, contiguous);
    // The last byte waits for verification: no client gets a corrupt object whole.
    fetch.advance(Math.min(contiguous, size - 1));
  }

  /** Whether every byte is on disk (and so hashed). */
  synchronized boolean complete() {
    return contiguous == size;
  }

  private void hash(long from, long to) throws IOException {
    ByteBuffer buf = BUFFER.get();
    long pos = from;
    while (pos < to) {
      buf.clear().limit((int) Math.min(buf.capacity(), to - pos));
      int n = file.read(buf, pos);
      if (n <= 0) {
        throw new IOException("work file shorter than the bytes written to it at " + pos);
      }
      buf.flip();
      verifier.update(buf);
      pos += n;
    }
  }
}
