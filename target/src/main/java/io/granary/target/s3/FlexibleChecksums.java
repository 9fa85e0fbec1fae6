package io.granary.target.s3;

import io.granary.common.s3.ObjectChecksum;
import io.granary.target.meta.FlexibleChecksum;
import io.granary.target.meta.ObjectMeta;
import io.netty.handler.codec.http.HttpHeaders;

/** How S3 answers an object's flexible checksum: in headers (the value and {@code x-amz-checksum-type}) or XML. */
final class FlexibleChecksums {
  private FlexibleChecksums() {}

  /** The object's flexible checksum as S3 XML answers carry it, or null when it has none. */
  static ObjectChecksum of(ObjectMeta meta) {
    FlexibleChecksum c = meta.flexible();
    return c == null ? null : new ObjectChecksum(c.type().wireName(), c.wireValue(meta.partSizes().size()),
        c.kind().name());
  }

  /** Sets the object's flexible checksum headers; nothing when the client gave it none. */
  static void set(HttpHeaders h, ObjectMeta meta) {
    FlexibleChecksum c = meta.flexible();
    if (c != null) {
      h.set(c.header(), c.wireValue(meta.partSizes().size()));
      h.set(S3ObjectApi.CHECKSUM_TYPE_HEADER, c.kind().name());
    }
  }

  /**
   * Sets part {@code number}'s checksum headers, as S3 answers a GET or HEAD of one part in checksum mode: the
   * part's own checksum with the object's checksum type; nothing when the object keeps no part checksums (also an
   * object written by one PUT, which has no parts).
   */
  static void setPart(HttpHeaders h, ObjectMeta meta, int number) {
    FlexibleChecksum c = meta.flexible();
    if (c == null) {
      return;
    }
    String value = c.partWireValue(number);
    if (value != null) {
      h.set(c.header(), value);
      h.set(S3ObjectApi.CHECKSUM_TYPE_HEADER, c.kind().name());
    }
  }
}
