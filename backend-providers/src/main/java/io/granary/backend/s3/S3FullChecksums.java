package io.granary.backend.s3;

import io.granary.backend.RemoteChecksum;
import io.granary.clustermap.bucket.ChecksumType;
import java.util.Base64;
import java.util.HexFormat;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;

/**
 * Picks the checksum of an object's whole content out of a HEAD answered in checksum mode: S3 keeps at most one
 * flexible checksum per object, base64 of the big-endian value. A COMPOSITE one (a multipart upload's checksum of
 * its parts' checksums, {@code value-N}) says nothing a reader of the whole content can compare, nor does a value
 * of the wrong width.
 */
final class S3FullChecksums {
  private S3FullChecksums() {}

  static RemoteChecksum of(HeadObjectResponse r) {
    software.amazon.awssdk.services.s3.model.ChecksumType kind = r.checksumType();
    if (kind == software.amazon.awssdk.services.s3.model.ChecksumType.COMPOSITE) {
      return null;
    }
    // A multipart object's CRC32, CRC32C, SHA-1 or SHA-256 is composite unless the store says FULL_OBJECT (S3's
    // default; some stores omit both the type and the "-N" suffix); CRC64NVME is always of the full object.
    boolean multipart = r.eTag() != null && r.eTag().matches("\"?[0-9a-fA-F]+-\\d+\"?");
    if (multipart && kind != software.amazon.awssdk.services.s3.model.ChecksumType.FULL_OBJECT) {
      return decode(ChecksumType.CRC64NVME, r.checksumCRC64NVME());
    }
    RemoteChecksum c = decode(ChecksumType.CRC32C, r.checksumCRC32C());
    c = c != null ? c : decode(ChecksumType.CRC32, r.checksumCRC32());
    c = c != null ? c : decode(ChecksumType.CRC64NVME, r.checksumCRC64NVME());
    c = c != null ? c : decode(ChecksumType.SHA1, r.checksumSHA1());
    return c != null ? c : decode(ChecksumType.SHA256, r.checksumSHA256());
  }

  private static RemoteChecksum decode(ChecksumType type, String base64) {
    if (base64 == null || base64.indexOf('-') >= 0) {
      return null;
    }
    try {
      byte[] raw = Base64.getDecoder().decode(base64.trim());
      return raw.length == type.bytes() ? new RemoteChecksum(type, HexFormat.of().formatHex(raw)) : null;
    } catch (IllegalArgumentException e) {
      return null;
    }
  }
}
