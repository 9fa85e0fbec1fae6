package io.granary.target.s3;

import io.granary.clustermap.bucket.ChecksumType;
import io.granary.common.s3.S3ApiException;
import io.granary.target.meta.FlexibleChecksum;
import io.granary.target.multipart.UploadChecksum;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.Locale;

/**
 * The flexible checksum of CreateMultipartUpload: {@code x-amz-checksum-algorithm} (CRC32, CRC32C, CRC64NVME, SHA1,
 * SHA256) and {@code x-amz-checksum-type} (COMPOSITE or FULL_OBJECT; S3's default by algorithm when absent), read
 * from the request and echoed in the answer; CopyObject takes the algorithm alone. Anything else is 400
 * InvalidRequest, as S3 answers.
 */
final class UploadChecksumHeaders {
  static final String ALGORITHM = "x-amz-checksum-algorithm";
  static final String TYPE = S3ObjectApi.CHECKSUM_TYPE_HEADER;

  private UploadChecksumHeaders() {}

  /** The upload's checksum, or null when the request names none. */
  static UploadChecksum parse(HttpHeaders h) {
    ChecksumType t = algorithm(h);
    String type = h.get(TYPE);
    if (t == null) {
      if (type != null) {
        throw invalid("x-amz-checksum-type needs x-amz-checksum-algorithm");
      }
      return null;
    }
    FlexibleChecksum.Kind kind;
    try {
      kind = type == null ? UploadChecksum.defaultKind(t)
          : FlexibleChecksum.Kind.valueOf(type.strip().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw invalid("x-amz-checksum-type must be COMPOSITE or FULL_OBJECT, got '" + type + "'");
    }
    try {
      return new UploadChecksum(t, kind);
    } catch (IllegalArgumentException e) {
      throw invalid("The " + t.wireName().toUpperCase(Locale.ROOT) + " checksum algorithm does not support the "
          + kind + " checksum type");
    }
  }

  /** The algorithm {@code x-amz-checksum-algorithm} names, or null when absent. */
  static ChecksumType algorithm(HttpHeaders h) {
    String algorithm = h.get(ALGORITHM);
    if (algorithm == null) {
      return null;
    }
    ChecksumType t;
    try {
      t = ChecksumType.parse(algorithm.strip());
    } catch (IllegalArgumentException e) {
      t = null;
    }
    if (t == null || !t.s3Flexible()) {
      throw invalid("Checksum algorithm provided is unsupported. Please try again with any of the valid types: "
          + "[CRC32, CRC32C, CRC64NVME, SHA1, SHA256]");
    }
    return t;
  }

  static void echo(HttpHeaders h, UploadChecksum c) {
    if (c != null) {
      h.set(ALGORITHM, c.algorithm().wireName().toUpperCase(Locale.ROOT));
      h.set(TYPE, c.kind().name());
    }
  }

  private static S3ApiException invalid(String message) {
    return new S3ApiException(HttpResponseStatus.BAD_REQUEST, "InvalidRequest", message);
  }
}
