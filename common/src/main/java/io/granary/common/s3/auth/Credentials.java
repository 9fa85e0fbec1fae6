package io.granary.common.s3.auth;

import java.security.SecureRandom;
import java.util.regex.Pattern;

/**
 * One S3 access key and its secret, as the proxy knows them. {@link #toString()} never shows the secret.
 *
 * @param accessKey 3..128 characters of {@code A-Z a-z 0-9 _ . / + = -}
 * @param secretKey non-empty
 */
public record Credentials(String accessKey, String secretKey) {
  private static final Pattern ACCESS_KEY = Pattern.compile("[A-Za-z0-9_./+=-]{3,128}");
  private static final String UPPER_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  private static final String BASE64ISH = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  private static final SecureRandom RANDOM = new SecureRandom();

  public Credentials {
    if (accessKey == null || !ACCESS_KEY.matcher(accessKey).matches()) {
      // The key itself stays out of the message: a mis-ordered line may have put a secret here.
      throw new IllegalArgumentException("access key must be 3..128 characters of A-Z a-z 0-9 _ . / + = -");
    }
    if (secretKey == null || secretKey.isEmpty()) {
      throw new IllegalArgumentException("secret key of access key " + accessKey + " is empty");
    }
  }

  /** A fresh random pair shaped like AWS's: "GR" + 18 upper-case alphanumerics, and a 40-character secret. */
  public static Credentials generate() {
    return new Credentials("GR" + random(UPPER_ALNUM, 18), random(BASE64ISH, 40));
  }

  private static String random(String alphabet, int length) {
    StringBuilder sb = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      sb.append(alphabet.charAt(RANDOM.nextInt(alphabet.length())));
    }
    return sb.toString();
  }

  @Override
  public String toString() {
    return "Credentials[accessKey=" + accessKey + ", secretKey=***]";
  }
}
