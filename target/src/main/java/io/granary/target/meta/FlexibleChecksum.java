package io.granary.target.meta;

import io.granary.clustermap.bucket.ChecksumType;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The S3 flexible checksum a client gave an object ({@code x-amz-checksum-*} on PUT, or the algorithm of its
 * multipart upload), kept with it so that PUT, HEAD, GET (checksum mode) and GetObjectAttributes answer it as S3
 * does. Apart from the bucket's own checksum: a client may pick any of S3's algorithms whatever the bucket uses.
 *
 * @param type one of S3's flexible algorithms (crc32, crc32c, crc64nvme, sha1, sha256)
 * @param hex lowercase hex of the value: of the whole content (FULL_OBJECT), or of the concatenated part checksums
 *     (COMPOSITE)
 * @param kind how the value was computed
 * @param parts for an object completed from a multipart upload whose parts all had one: each part's checksum of the
 *     same algorithm (lowercase hex), in part order, as GetObjectAttributes and a GET of one part answer them;
 *     empty otherwise (a single PUT, or a record written before format 7)
 */
public record FlexibleChecksum(ChecksumType type, String hex, Kind kind, List<String> parts) {
  /** S3's {@code x-amz-checksum-type}. */
  public enum Kind { FULL_OBJECT, COMPOSITE }

  public FlexibleChecksum {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(kind, "kind");
    if (!type.s3Flexible()) {
      throw new IllegalArgumentException(type.wireName() + " is not an S3 flexible checksum");
    }
    hex = hex.toLowerCase(Locale.ROOT);
    parts = parts == null ? List.of() : parts.stream().map(p -> p.toLowerCase(Locale.ROOT)).toList();
  }

  /** A checksum without part checksums. */
  public FlexibleChecksum(ChecksumType type, String hex, Kind kind) {
    this(type, hex, kind, List.of());
  }

  /** The same checksum keeping {@code parts}, the parts' checksums in part order. */
  public FlexibleChecksum withParts(List<String> parts) {
    return new FlexibleChecksum(type, hex, kind, parts);
  }

  /** Part {@code number}'s (1-based) checksum as S3 sends it (base64), or null when the parts' are not kept. */
  public String partWireValue(int number) {
    return number < 1 || number > parts.size() ? null
        : Base64.getEncoder().encodeToString(HexFormat.of().parseHex(parts.get(number - 1)));
  }

  /** A checksum of the whole content. */
  public static FlexibleChecksum fullObject(ChecksumType type, String hex) {
    return new FlexibleChecksum(type, hex, Kind.FULL_OBJECT);
  }

  /** The header that carries it: {@code x-amz-checksum-crc32} and so on. */
  public String header() {
    return "x-amz-checksum-" + type.wireName();
  }

  /**
   * The value as S3 sends it: base64 of the big-endian value, and for a composite checksum {@code -N} with the
   * number of parts it was built from.
   */
  public String wireValue(int parts) {
    String b64 = Base64.getEncoder().encodeToString(HexFormat.of().parseHex(hex));
    return kind == Kind.COMPOSITE ? b64 + "-" + parts : b64;
  }
}
