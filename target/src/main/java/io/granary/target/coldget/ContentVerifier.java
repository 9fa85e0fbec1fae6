package io.granary.target.coldget;

import io.granary.backend.RemoteChecksum;
import io.granary.backend.RemoteObject;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.common.error.ChecksumMismatchException;
import io.granary.target.checksum.ContentHasher;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Hashes a cold object's bytes in order: the bucket's checksum (stored like any object's) plus one the remote vouches
 * for (GCS CRC32C, else MD5 from a single-part S3 ETag or GCS md5Hash, else the whole-content checksum S3 keeps
 * for a multipart upload, whose ETag is no MD5), which {@link #verify} then compares. When the bucket's checksum is
 * that one, each byte is hashed once. With none of them, the content is stored unverified.
 */
final class ContentVerifier {
  private final ContentHasher bucketHasher;
  private final ContentHasher md5;
  private final ContentHasher crc32c;
  private final RemoteChecksum full;
  private final ContentHasher fullHasher;
  private final List<ContentHasher> all = new ArrayList<>(3);
  private final RemoteObject object;

  /** As below, for an object whose remote offers no checksum beyond what {@code object} carries. */
  ContentVerifier(ChecksumType bucketType, RemoteObject object) {
    this(bucketType, object, null);
  }

  /**
   * @param full the whole-content checksum the remote keeps ({@code Backend.fullChecksum}), or null; used only when
   *     {@code object} carries neither MD5 nor CRC32C
   */
  ContentVerifier(ChecksumType bucketType, RemoteObject object, RemoteChecksum full) {
    this.object = object;
    this.bucketHasher = ContentHasher.of(bucketType);
    all.add(bucketHasher);
    // One vouched-for checksum suffices; CRC32C (hardware-accelerated) is far cheaper than MD5 when both exist.
    this.crc32c = object.crc32c() == null ? null
        : bucketType == ChecksumType.CRC32C ? bucketHasher : add(ChecksumType.CRC32C);
    this.md5 = object.md5() == null || (crc32c != null && bucketType != ChecksumType.MD5) ? null
        : bucketType == ChecksumType.MD5 ? bucketHasher : add(ChecksumType.MD5);
    this.full = md5 != null || crc32c != null ? null : full;
    this.fullHasher = this.full == null ? null : bucketType == this.full.type() ? bucketHasher : add(this.full.type());
  }

  /** Whether {@link #verify} compares the content with anything the remote vouches for. */
  boolean vouched() {
    return md5 != null || crc32c != null || full != null;
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
    if (full != null) {
      String actual = fullHasher == bucketHasher ? bucketHex : fullHasher.hex();
      if (!actual.equals(full.hex())) {
        throw new ChecksumMismatchException(full.type().wireName(), full.hex(), actual);
      }
    }
    return bucketHex;
  }
}
