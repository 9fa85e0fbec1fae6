package io.granary.common.s3;

import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.regex.Pattern;

/**
 * S3's naming rules, which the S3 API applies where the native API has its own
 * ({@link io.granary.clustermap.bucket.BucketName}, {@link io.granary.clustermap.bucket.ObjectName}).
 *
 * <p>Buckets created through S3 follow S3's general-purpose bucket rules: 3 to 63 characters of lowercase
 * letters, digits, '.' and '-', starting and ending with a letter or digit, no "..", not an IP address, none of
 * the prefixes and suffixes S3 reserves. That is stricter than BucketName ('_' for GCS), so an existing bucket
 * is looked up by BucketName's rule and only new ones are held to this one.
 *
 * <p>Keys are 1 to 1024 bytes of valid UTF-8, as in S3. Whether Granary stores a key ('.' and '..' segments,
 * a leading '/') is ObjectName's business.
 */
public final class S3Names {
  public static final int MAX_KEY_BYTES = 1024;
  private static final Pattern IP_ADDRESS = Pattern.compile("\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}");
  private static final String[] RESERVED_PREFIXES = {"xn--", "sthree-", "amzn-s3-demo-"};
  private static final String[] RESERVED_SUFFIXES = {"-s3alias", "--ol-s3", ".mrap", "--x-s3", "--table-s3"};

  private S3Names() {}

  /** What is wrong with {@code name} as a new S3 bucket name, or {@code null} when it is valid. */
  public static String bucketProblem(String name) {
    if (name == null || name.length() < 3 || name.length() > 63) {
      return "bucket names must be 3 to 63 characters long";
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-')) {
        return "bucket names may contain only lowercase letters, digits, '.' and '-'";
      }
    }
    if (!isLetterOrDigit(name.charAt(0)) || !isLetterOrDigit(name.charAt(name.length() - 1))) {
      return "bucket names must start and end with a letter or digit";
    }
    if (name.contains("..")) {
      return "bucket names must not contain two adjacent periods";
    }
    if (IP_ADDRESS.matcher(name).matches()) {
      return "bucket names must not be formatted as an IP address";
    }
    for (String p : RESERVED_PREFIXES) {
      if (name.startsWith(p)) {
        return "bucket names must not start with the reserved prefix '" + p + "'";
      }
    }
    for (String s : RESERVED_SUFFIXES) {
      if (name.endsWith(s)) {
        return "bucket names must not end with the reserved suffix '" + s + "'";
      }
    }
    return null;
  }

  /** What is wrong with {@code key} as an S3 object key, or {@code null} when it is valid. */
  public static String keyProblem(String key) {
    if (key == null || key.isEmpty()) {
      return "the key must not be empty";
    }
    int bytes = utf8Length(key);
    if (bytes < 0) {
      return "the key is not valid UTF-8";
    }
    if (bytes > MAX_KEY_BYTES) {
      return "the key is " + bytes + " bytes long; the limit is " + MAX_KEY_BYTES + " bytes of UTF-8";
    }
    return null;
  }

  /**
   * Returns {@code key} when valid.
   *
   * @throws S3ApiException KeyTooLongError for a key over 1024 bytes, InvalidArgument for other problems
   */
  public static String requireValidKey(String key) {
    String problem = keyProblem(key);
    if (problem == null) {
      return key;
    }
    boolean tooLong = key != null && utf8Length(key) > MAX_KEY_BYTES;
    throw new S3ApiException(HttpResponseStatus.BAD_REQUEST,
        tooLong ? S3ApiException.KEY_TOO_LONG : S3ApiException.INVALID_ARGUMENT,
        tooLong ? "Your key is too long: " + problem : problem);
  }

  /** Bytes of {@code s} in UTF-8, or -1 when it holds an unpaired surrogate (which has no UTF-8 form). */
  private static int utf8Length(String s) {
    int bytes = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
        bytes += 4;
        i++;
      } else if (Character.isSurrogate(c)) {
        return -1;
      } else {
        bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
      }
    }
    return bytes;
  }

  private static boolean isLetterOrDigit(char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  }
}
