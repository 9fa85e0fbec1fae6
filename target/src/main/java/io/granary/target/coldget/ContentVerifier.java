package io.granary.target.coldget;

import io.granary.backend.RemoteObject;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.common.error.ChecksumMismatchException;
import io.granary.target.checksum.ContentHasher;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Hashes a cold object's bytes in order: the bucket's checksum (stored like any object's) plus one the remote vouches
 * for (GCS CRC32C, else MD5 from a single-part S3 ETag or GCS md5Hash), which {@link #verify} then compares. When
 * the bucket's checksum is that one, each byte is hashed once.
 */
final class ContentVerifier {
  private final ContentHasher bucketHasher;
  private final ContentHasher md5;
  private final ContentHasher crc32c;
  private final List<ContentHasher> all = new ArrayList<>(3);
  private final RemoteObject object;

  ContentVerifier(ChecksumType bucketType, RemoteObject object) {
    this.object = object;
    this.bucketHasher = ContentHasher.of(bucketType);
    all.add(bucketHasher);
    // One vouched-for checksum suffices; CRC32C (hardware-accelerated) is far cheaper than MD5 when both exist.
    this.crc32c = object.crc32c() == null ? null
        : bucketType == ChecksumType.CRC32C ? bucketHasher : add(ChecksumType.CRC32C);
    this.md5 = object.md5() == null || (crc32c != null && bucketType != ChecksumType.MD5) ? null
        : bucketType == ChecksumType.MD5 ? bucketHasher : add(ChecksumType.MD5);
  }

  private ContentHasher add(ChecksumType t) {
    ContentHasher h = ContentHasher.of(t);
    all.add(h);
    return h;
  }

  /** Consumes the buffer's remaining bytes without moving its position. */
  void update(ByteBuffer buf) {
    for (ContentHasher h : all) {
      h.update(buf);
    }
  }

  /**
   * Compares with the remote's checksums; returns the bucket checksum's hex.
   *
   * @throws ChecksumMismatchException when the content is not what the remote says it is
   */
  String verify() {
    String bucketHex = bucketHasher.hex();
    if (md5 != null) {
      String actual = md5 == bucketHasher ? bucketHex : md5.hex();
      if (!actual.equalsIgnoreCase(object.md5())) {
        throw new ChecksumMismatchException("md5", object.md5(), actual);
      }
    }
    if (crc32c != null) {
      String actual = crc32c == bucketHasher ? bucketHex : crc32c.hex();
      if (!actual.equalsIgnoreCase(object.crc32c())) {
        throw new ChecksumMismatchException("crc32c", object.crc32c(), actual);
      }
    }
    return bucketHex;
  }
}
