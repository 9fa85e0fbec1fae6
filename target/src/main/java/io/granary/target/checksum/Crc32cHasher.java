package io.granary.target.checksum;

import io.granary.clustermap.bucket.ChecksumType;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/** CRC-32C via the JDK (hardware-accelerated, reads direct buffers in place). */
final class Crc32cHasher implements ContentHasher {
  private final CRC32C crc = new CRC32C();

  @Override
  public ChecksumType type() {
    return ChecksumType.CRC32C;
  }

  @Override
  public void update(ByteBuffer buf) {
    crc.update(buf.duplicate());
  }

  @Override
  public String hex() {
    String s = Long.toHexString(crc.getValue());
    return "0".repeat(8 - s.length()) + s;
  }
}
