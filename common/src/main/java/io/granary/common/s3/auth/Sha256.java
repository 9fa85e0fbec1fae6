package io.granary.common.s3.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256 as SigV4 uses it: fresh digests and lower-case hex. */
final class Sha256 {
  static final HexFormat HEX = HexFormat.of();
  /** hex(sha256("")): the payload hash of an empty body and a fixed line of every chunk's string-to-sign. */
  static final String EMPTY_HEX = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

  private Sha256() {
  }

  static MessageDigest newDigest() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is not available", e);
    }
  }

  /** One digest per thread for {@link #hex}: getInstance walks the provider list on every call. */
  private static final ThreadLocal<MessageDigest> DIGEST = ThreadLocal.withInitial(Sha256::newDigest);

  static String hex(String s) {
    return HEX.formatHex(DIGEST.get().digest(s.getBytes(StandardCharsets.UTF_8))); // digest() resets it
  }

  /** Whether {@code s} is 64 ASCII hex digits (either case). */
  static boolean isHex64(String s) {
    return s != null && s.length() == 64 && s.chars().allMatch(Sha256::isHexDigit);
  }

  /** An ASCII hex digit; unlike Character.digit, no other script's digits. */
  static boolean isHexDigit(int c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  }
}
