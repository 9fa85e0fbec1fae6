package io.granary.target.checksum;

import io.granary.clustermap.bucket.ChecksumType;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Hashes a stored file with positional reads through one direct buffer per disk thread: memory per hash is
 * {@link #BUFFER} bytes whatever the object's size, and nothing passes through the heap. Disk threads only.
 */
public final class FileHashing {
  /** Bytes read at once: large enough for sequential disk reads, small enough to keep per thread. */
  static final int BUFFER = 256 << 10;
  private static final ThreadLocal<ByteBuffer> BUF = ThreadLocal.withInitial(() -> ByteBuffer.allocateDirect(BUFFER));

  private FileHashing() {}

  /** The checksum of the first {@code size} bytes of {@code ch} as lowercase hex; a shorter file is an error. */
  public static String hash(FileChannel ch, long size, ChecksumType type) throws IOException {
    ContentHasher h = ContentHasher.of(type);
    ByteBuffer buf = BUF.get();
    long pos = 0;
    while (pos < size) {
      buf.clear();
      buf.limit((int) Math.min(buf.capacity(), size - pos));
      int n = ch.read(buf, pos);
      if (n < 0) {
        throw new EOFException("file ends at " + pos + " of " + size + " bytes");
      }
      buf.flip();
      h.update(buf);
      pos += n;
    }
    return h.hex();
  }

  /** {@link #hash} of the file at {@code file}. */
  public static String hash(Path file, long size, ChecksumType type) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      return hash(ch, size, type);
    }
  }
}
