package io.granary.backend;

import io.granary.clustermap.bucket.ChecksumType;
import java.util.Locale;
import java.util.Objects;

/**
 * A checksum of an object's whole content that the remote store keeps and vouches for, beyond the MD5 and CRC32C a
 * {@link RemoteObject} carries: an S3 flexible checksum of type FULL_OBJECT, which unlike a multipart upload's ETag
 * covers the content itself.
 *
 * @param type the algorithm
 * @param hex lowercase hex of the value, big-endian, as wide as the algorithm's output
 */
public record RemoteChecksum(ChecksumType type, String hex) {
  public RemoteChecksum {
    Objects.requireNonNull(type, "type");
    hex = Objects.requireNonNull(hex, "hex").toLowerCase(Locale.ROOT);
  }
}
