package io.granary.common.s3;

import java.nio.charset.StandardCharsets;

/**
 * {@code encoding-type=url} on list requests: S3 then URL-encodes the keys, prefixes, delimiters and markers in
 * the XML answer, so that keys with characters XML 1.0 cannot carry (most control characters) still list.
 * boto3 and the AWS CLI ask for it on every listing and decode these elements; aws-sdk-java-v2 decodes them when
 * asked for it.
 *
 * <p>The encoding: UTF-8 bytes, every byte percent-encoded with upper-case hex except the RFC 3986 unreserved
 * characters {@code A-Z a-z 0-9 - _ . ~} and {@code /}, which S3 leaves readable in keys. A space is {@code %20},
 * never {@code +}, and {@code +} itself is {@code %2B}: the result decodes to the key under both decoders
 * clients use, "plus means space" ones (botocore's {@code unquote_plus}, Java's {@code URLDecoder}, Go's
 * {@code QueryUnescape}) and plain percent-decoders.
 */
public final class S3UrlEncoding {
  /** The only value of the {@code encoding-type} request parameter and of the {@code EncodingType} element. */
  public static final String URL = "url";
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private S3UrlEncoding() {}

  /**
   * Reads the {@code encoding-type} query parameter.
   *
   * @return whether the answer must be URL-encoded: false when the parameter is absent or empty
   * @throws S3ApiException InvalidArgument for any value but {@code url}, as S3 answers
   */
  public static boolean requested(String encodingType) {
    if (encodingType == null || encodingType.isEmpty()) {
      return false;
    }
    if (encodingType.equalsIgnoreCase(URL)) {
      return true;
    }
    throw S3ApiException.invalidArgument("Invalid Encoding Method specified in Request: encoding-type must be 'url'",
        "encoding-type", encodingType);
  }

  /** {@code s} URL-encoded as described above; {@code null} stays {@code null}. */
  public static String encode(String s) {
    if (s == null) {
      return null;
    }
    byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
    StringBuilder out = new StringBuilder(utf8.length + 16);
    for (byte b : utf8) {
      int c = b & 0xff;
      if (isKept(c)) {
        out.append((char) c);
      } else {
        out.append('%').append(HEX[c >> 4]).append(HEX[c & 0xf]);
      }
    }
    return out.toString();
  }

  private static boolean isKept(int c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
        || c == '-' || c == '_' || c == '.' || c == '~' || c == '/';
  }
}
