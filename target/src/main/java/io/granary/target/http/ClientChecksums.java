package io.granary.target.http;

import io.granary.clustermap.bucket.ChecksumType;
import io.granary.common.api.GranaryHeaders;
import io.granary.common.error.BadRequestException;
import io.granary.target.storage.ExpectedChecksum;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The checksums a client may send with a PUT, which the body must match or nothing is stored: {@code Content-MD5}
 * (base64), {@code x-amz-checksum-crc32|crc32c|crc64nvme|sha1|sha256} (base64 of the big-endian value, as S3
 * clients send them) and {@code Granary-Checksum-Type} + {@code Granary-Checksum-Value} (hex). Malformed values are 400.
 */
public final class ClientChecksums {
  private static final Pattern HEX = Pattern.compile("[0-9a-fA-F]+");

  private ClientChecksums() {}

  /** The {@code x-amz-checksum-*} header that carries a checksum of this type, or null when S3 has none. */
  public static String s3Header(ChecksumType type) {
    return type.s3Flexible() ? "x-amz-checksum-" + type.wireName() : null;
  }

  /**
   * The S3 flexible checksum a PUT gives its object: the algorithm of its {@code x-amz-checksum-*} header, or of the
   * checksum trailer its relaying proxy verified ({@link GranaryHeaders#CHECKSUM_TRAILER}); null when neither. More
   * than one is 400, as S3 answers.
   */
  public static ChecksumType flexible(HttpHeaders h) {
    ChecksumType found = null;
    for (ChecksumType t : ChecksumType.values()) {
      String name = s3Header(t);
      if (name != null && (h.contains(name) || name.equalsIgnoreCase(h.get(GranaryHeaders.CHECKSUM_TRAILER)))) {
        if (found != null && found != t) {
          throw new BadRequestException("InvalidRequest", "Expecting a single x-amz-checksum- header. Multiple "
              + "checksum Types are not allowed.");
        }
        found = t;
      }
    }
    return found;
  }

  public static List<ExpectedChecksum> parse(HttpHeaders h) {
    List<ExpectedChecksum> out = new ArrayList<>(2);
    String md5 = h.get(HttpHeaderNames.CONTENT_MD5);
    if (md5 != null) {
      out.add(new ExpectedChecksum(ChecksumType.MD5, base64(md5, 16, "Content-MD5", "InvalidDigest")));
    }
    for (ChecksumType t : ChecksumType.values()) {
      String name = s3Header(t);
      String v = name == null ? null : h.get(name);
      if (v != null) {
        out.add(new ExpectedChecksum(t, base64(v, t.bytes(), name, "InvalidRequest")));
      }
    }
    String type = h.get(GranaryHeaders.CHECKSUM_TYPE);
    String value = h.get(GranaryHeaders.CHECKSUM_VALUE);
    if (type != null || value != null) {
      if (type == null || value == null) {
        throw BadRequestException.invalidArgument(
            "send both Granary-Checksum-Type and Granary-Checksum-Value, or neither");
      }
      ChecksumType t;
      try {
        t = ChecksumType.parse(type);
      } catch (IllegalArgumentException e) {
        throw BadRequestException.invalidArgument(e.getMessage());
      }
      if (!HEX.matcher(value).matches()) {
        throw BadRequestException.invalidArgument("Granary-Checksum-Value must be hex, got '" + value + "'");
      }
      out.add(new ExpectedChecksum(t, value.toLowerCase(Locale.ROOT)));
    }
    return out;
  }

  private static String base64(String value, int bytes, String header, String code) {
    byte[] raw;
    try {
      raw = Base64.getDecoder().decode(value.trim());
    } catch (IllegalArgumentException e) {
      raw = new byte[0];
    }
    if (raw.length != bytes) {
      throw new BadRequestException(code, header + " must be the base64 of a " + bytes + "-byte value");
    }
    return HexFormat.of().formatHex(raw);
  }
}
