package io.granary.target.checksum;

import io.granary.clustermap.bucket.ChecksumType;
import io.granary.common.checksum.Crc64Nvme;
import java.nio.ByteBuffer;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;

/**
 * A checksum computed incrementally over an object's bytes as they stream past. Not thread-safe; one per
 * operation.
 */
public interface ContentHasher {

  ChecksumType type();

  /** Consumes the remaining bytes of {@code buf} without changing its position (heap or direct). */
  void update(ByteBuffer buf);

  /** The checksum of everything consumed so far, as lowercase hex. Call once, at the end. */
  String hex();

  /** A new hasher for {@code type}. */
  static ContentHasher of(ChecksumType type) {
    return switch (type) {
      case XXHASH64 -> new Xxh64Hasher(0);
      case MD5 -> new DigestHasher(ChecksumType.MD5, "MD5");
      case SHA256 -> new DigestHasher(ChecksumType.SHA256, "SHA-256");
      case CRC32C -> new CrcHasher(ChecksumType.CRC32C, new CRC32C());
      case CRC32 -> new CrcHasher(ChecksumType.CRC32, new CRC32());
      case SHA1 -> new DigestHasher(ChecksumType.SHA1, "SHA-1");
      case CRC64NVME -> new CrcHasher(ChecksumType.CRC64NVME, new Crc64Nvme());
    };
  }
}
