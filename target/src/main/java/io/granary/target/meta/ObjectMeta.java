package io.granary.target.meta;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.granary.clustermap.bucket.ChecksumType;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The immutable record of one stored object version. Access time is kept apart so that reads never rewrite it.
 *
 * @param size content length in bytes
 * @param checksumType algorithm of {@code checksum}
 * @param checksum lowercase hex checksum of the whole content
 * @param mtime when this version was committed, epoch milliseconds
 * @param etag the S3 ETag without quotes: the content MD5 for a single PUT, {@code md5-of-part-md5s-N} for a
 *     multipart upload; null for objects written without one (their ETag is the checksum)
 * @param contentType the Content-Type given at upload, or null
 * @param userMeta user metadata ({@code x-amz-meta-*} without the prefix, lowercase names), possibly empty
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record ObjectMeta(long size, ChecksumType checksumType, String checksum, long mtime, String etag,
    String contentType, Map<String, String> userMeta) {
  public ObjectMeta {
    Objects.requireNonNull(checksumType, "checksumType");
    Objects.requireNonNull(checksum, "checksum");
    if (size < 0) {
      throw new IllegalArgumentException("size must be >= 0");
    }
    userMeta = userMeta == null || userMeta.isEmpty() ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(userMeta));
  }

  /** An object with only content attributes (no S3 ETag, type or user metadata). */
  public ObjectMeta(long size, ChecksumType checksumType, String checksum, long mtime) {
    this(size, checksumType, checksum, mtime, null, null, Map.of());
  }

  /** The ETag clients see, without quotes: the S3 ETag when there is one, else the content checksum. */
  public String effectiveEtag() {
    return etag != null ? etag : checksum;
  }
}
