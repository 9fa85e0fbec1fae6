package io.granary.common.s3;

import java.util.Locale;
import java.util.Objects;

/**
 * An S3 flexible checksum as GetObjectAttributes lists it: {@code <ChecksumCRC32>value</ChecksumCRC32>} and so on.
 *
 * @param algorithm the algorithm's wire name, any case ({@code crc32}, {@code crc64nvme}, {@code sha256}...)
 * @param value base64 of the value, as S3 sends it (a composite one with its {@code -N})
 * @param type {@code FULL_OBJECT} or {@code COMPOSITE}; null where S3 names none (a part's checksum)
 */
public record ObjectChecksum(String algorithm, String value, String type) {
  public ObjectChecksum {
    algorithm = algorithm.toUpperCase(Locale.ROOT);
    Objects.requireNonNull(value, "value");
  }

  /** The element that carries the value: {@code ChecksumCRC32}, {@code ChecksumSHA256}... */
  public String element() {
    return "Checksum" + algorithm;
  }

  void writeValue(S3XmlWriter xml) {
    xml.element(element(), value);
  }
}
