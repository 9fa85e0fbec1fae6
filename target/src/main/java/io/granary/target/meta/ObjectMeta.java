package io.granary.target.meta;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.granary.clustermap.bucket.ChecksumType;
import java.util.Objects;

/**
 * The immutable record of one stored object version. Access time is kept apart so that reads never rewrite it.
 *
 * @param size content length in bytes
 * @param checksumType algorithm of {@code checksum}
 * @param checksum lowercase hex checksum of the whole content
 * @param mtime when this version was committed, epoch milliseconds
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ObjectMeta(long size, ChecksumType checksumType, String checksum, long mtime) {
  public ObjectMeta {
    Objects.requireNonNull(checksumType, "checksumType");
    Objects.requireNonNull(checksum, "checksum");
    if (size < 0) {
      throw new IllegalArgumentException("size must be >= 0");
    }
  }
}
