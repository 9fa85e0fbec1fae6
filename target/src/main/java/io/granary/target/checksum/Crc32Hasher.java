package io.granary.target.checksum;

import io.granary.clustermap.bucket.ChecksumType;
import java.nio.ByteBuffer;
import java.util.zip.CRC32;

/** CRC-32 (ISO-HDLC, as zip and S3's x-amz-checksum-crc32) via the JDK; reads direct buffers in place. */
final class Crc32Hasher implements ContentHasher {
  private final CRC32 crc = new CRC32();

  @Override
  public ChecksumType type() {
    return ChecksumType.CRC32;
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
