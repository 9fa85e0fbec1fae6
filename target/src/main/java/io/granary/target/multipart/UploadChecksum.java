package io.granary.target.multipart;

import io.granary.clustermap.bucket.ChecksumType;
import io.granary.target.meta.FlexibleChecksum;
import java.util.Objects;

/**
 * The flexible checksum a multipart upload was created with ({@code x-amz-checksum-algorithm} and
 * {@code x-amz-checksum-type} of CreateMultipartUpload): every part keeps its checksum of this algorithm, and the
 * completed object a COMPOSITE one (the checksum of the parts' checksums, {@code -N}) or a FULL_OBJECT one (of the
 * whole content; S3 allows it for the CRCs only).
 *
 * @param algorithm one of S3's flexible algorithms
 * @param kind what the completed object's checksum is
 */
public record UploadChecksum(ChecksumType algorithm, FlexibleChecksum.Kind kind) {
  public UploadChecksum {
    Objects.requireNonNull(algorithm, "algorithm");
    Objects.requireNonNull(kind, "kind");
    if (!algorithm.s3Flexible()) {
      throw new IllegalArgumentException(algorithm.wireName() + " is not an S3 flexible checksum");
    }
    if (kind == FlexibleChecksum.Kind.FULL_OBJECT && !isCrc(algorithm)) {
      throw new IllegalArgumentException("a FULL_OBJECT checksum of a multipart upload is a CRC, not "
          + algorithm.wireName());
    }
  }

  /** S3's default type for an algorithm: FULL_OBJECT for CRC-64/NVME (which has no composite form), else COMPOSITE. */
  public static FlexibleChecksum.Kind defaultKind(ChecksumType algorithm) {
    return algorithm == ChecksumType.CRC64NVME ? FlexibleChecksum.Kind.FULL_OBJECT : FlexibleChecksum.Kind.COMPOSITE;
  }

  static boolean isCrc(ChecksumType t) {
    return t == ChecksumType.CRC32 || t == ChecksumType.CRC32C || t == ChecksumType.CRC64NVME;
  }
}
