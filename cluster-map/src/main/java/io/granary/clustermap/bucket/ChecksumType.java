package io.granary.clustermap.bucket;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/**
 * Content checksum algorithms: a bucket computes one of them for every object ({@link #XXHASH64} by default) and
 * clients may send any of them for verification.
 */
public enum ChecksumType {
  /** XXH64, seed 0; 16 lowercase hex digits. Fast, not cryptographic. */
  XXHASH64("xxhash64", 8, false),
  /** MD5; 32 hex digits. Matches S3 ETags of single-part uploads. */
  MD5("md5", 16, false),
  /** CRC-32C (Castagnoli); 8 hex digits. What GCS reports. */
  CRC32C("crc32c", 4, true),
  /** SHA-256; 64 hex digits. */
  SHA256("sha256", 32, true),
  /** CRC-32 (ISO-HDLC); 8 hex digits. What S3 clients send as x-amz-checksum-crc32. */
  CRC32("crc32", 4, true),
  /** SHA-1; 40 hex digits. What S3 clients send as x-amz-checksum-sha1. */
  SHA1("sha1", 20, true),
  /** CRC-64/NVME; 16 hex digits. What S3 computes for objects uploaded without a checksum. */
  CRC64NVME("crc64nvme", 8, true);

  private final String wireName;
  private final int bytes;
  private final boolean s3Flexible;

  ChecksumType(String wireName, int bytes, boolean s3Flexible) {
    this.wireName = wireName;
    this.bytes = bytes;
    this.s3Flexible = s3Flexible;
  }

  /** The value's width in bytes (twice as many hex digits). */
  public int bytes() {
    return bytes;
  }

  /**
   * Whether S3 has it as a flexible checksum: clients send it as {@code x-amz-checksum-NAME} and S3 may keep it for
   * a whole object (MD5 is the single-part ETag's business instead).
   */
  public boolean s3Flexible() {
    return s3Flexible;
  }

  @JsonValue
  public String wireName() {
    return wireName;
  }

  /** Parses a checksum type name case-insensitively ("xxhash" is accepted for xxhash64). */
  @JsonCreator
  public static ChecksumType parse(String s) {
    String v = s == null ? "" : s.toLowerCase(Locale.ROOT);
    if (v.equals("xxhash") || v.equals("xxh64")) {
      return XXHASH64;
    }
    for (ChecksumType t : values()) {
      if (t.wireName.equals(v)) {
        return t;
      }
    }
    throw new IllegalArgumentException(
        "unknown checksum type '" + s + "': expected xxhash64, md5, crc32c, sha256, crc32, sha1 or crc64nvme");
  }
}
