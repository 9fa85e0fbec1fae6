package io.granary.common.s3.auth;

import java.nio.charset.StandardCharsets;

/**
 * AWS's UriEncode for canonical requests: every UTF-8 byte except the unreserved {@code A-Z a-z 0-9 - . _ ~}
 * becomes %XX with upper-case hex; '/' is kept only in paths. This is how S3 clients encode what they sign.
 */
final class AwsUriEncoder {
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private AwsUriEncoder() {
  }

  /** Encodes {@code decoded}; '/' stays as it is when {@code keepSlash}. */
  static String encode(String decoded, boolean keepSlash) {
    byte[] bytes = decoded.getBytes(StandardCharsets.UTF_8);
    StringBuilder sb = new StringBuilder(bytes.length + 8);
    for (byte b : bytes) {
      int c = b & 0xff;
      if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
          || c == '-' || c == '.' || c == '_' || c == '~' || (c == '/' && keepSlash)) {
        sb.append((char) c);
      } else {
        sb.append('%').append(HEX[c >> 4]).append(HEX[c & 15]);
      }
    }
    return sb.toString();
  }
}
