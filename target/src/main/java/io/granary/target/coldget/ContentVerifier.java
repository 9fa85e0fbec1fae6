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
 * that one, each byte is hashed once; a whole-content checksum of the bucket's own type is preferred over an MD5
 * ETag for that reason (a crc64nvme bucket over S3 objects that carry CRC-64/NVME skips MD5, the dearest hash). With
 * none of them, the content is stored unverified.
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
   * @param full the whole-content checksum the remote keeps ({@code Backend.fullChecksum}), or null; used when it is
   *     of the bucket's type, or when {@code object} carries neither MD5 nor CRC32C
   */
  ContentVerifier(ChecksumType bucketType, RemoteObject object, RemoteChecksum full) {
    this.object = object;
    this.bucketHasher = ContentHasher.of(bucketType);
    all.add(bucketHasher);
    // One vouched-for checksum suffices: the bucket's own type costs nothing extra, and CRC32C
    // (hardware-accelerated) is far cheaper than MD5 when both exist.
    boolean fullIsBucketType = full != null && full.type() == bucketType;
    this.crc32c = object.crc32c() == null || fullIsBucketType ? null
        : bucketType == ChecksumType.CRC32C ? bucketHasher : add(ChecksumType.CRC32C);
    this.md5 = object.md5() == null || fullIsBucketType || (crc32c != null && bucketType != ChecksumType.MD5) ? null
        : bucketType == ChecksumType.MD5 ? bucketHasher : add(ChecksumType.MD5);
    this.full = fullIsBucketType || (md5 == null && crc32c == null) ? full : null;
    this.fullHasher = this.full == null ? null : bucketType == this.full.type() ? bucketHasher : add(this.full.type());
  }

  /**
   * Whether a remote's whole-content checksum could spare hashing an object whose first answer carries only an MD5:
   * the bucket keeps a type S3 may keep for a whole object, so a match means each byte is hashed once, not twice.
   */
  static boolean mayBeSparedMd5(ChecksumType bucketType, RemoteObject object) {
    return object.md5() != null && object.crc32c() == null && bucketType.s3Flexible();
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
        throw ChecksumMismatchException.ofRemote("md5", object.md5(), actual);
      }
    }
    if (crc32c != null) {
      String actual = crc32c == bucketHasher ? bucketHex : crc32c.hex();
      if (!actual.equalsIgnoreCase(object.crc32c())) {
        throw ChecksumMismatchException.ofRemote("crc32c", object.crc32c(), actual);
      }
    }
    if (full != null) {
      String actual = fullHasher == bucketHasher ? bucketHex : fullHasher.hex();
      if (!actual.equals(full.hex())) {
        throw ChecksumMismatchException.ofRemote(full.type().wireName(), full.hex(), actual);
      }
    }
    return bucketHex;
  }
}
