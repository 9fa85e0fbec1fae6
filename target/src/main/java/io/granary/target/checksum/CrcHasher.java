package io.granary.target.checksum;

import io.granary.clustermap.bucket.ChecksumType;
import java.nio.ByteBuffer;
import java.util.zip.Checksum;

/**
 * A CRC: CRC-32 (ISO-HDLC, as zip and S3's x-amz-checksum-crc32) or CRC-32C (hardware-accelerated) from the JDK,
 * or CRC-64/NVME. All read direct buffers in place; the hex is as wide as the CRC (8 or 16 digits).
 */
final class CrcHasher implements ContentHasher {
  private final ChecksumType type;
  private final Checksum crc;

  private final int hexDigits;

  CrcHasher(ChecksumType type, Checksum crc) {
    this.type = type;
    this.crc = crc;
    this.hexDigits = 2 * type.bytes();
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
    return "0".repeat(hexDigits - s.length()) + s;
  }
}
