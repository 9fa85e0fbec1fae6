package io.granary.target.checksum;

import io.granary.clustermap.bucket.ChecksumType;
import java.nio.ByteBuffer;
import java.util.zip.Checksum;

/**
 * A 32-bit CRC from the JDK: CRC-32 (ISO-HDLC, as zip and S3's x-amz-checksum-crc32) or CRC-32C
 * (hardware-accelerated). Both read direct buffers in place.
 */
final class CrcHasher implements ContentHasher {
  private final ChecksumType type;
  private final Checksum crc;

  CrcHasher(ChecksumType type, Checksum crc) {
    this.type = type;
    this.crc = crc;
  }

  @Override
  public ChecksumType type() {
    return type;
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
