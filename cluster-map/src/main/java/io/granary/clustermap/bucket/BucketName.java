package io.granary.clustermap.bucket;

import java.util.regex.Pattern;

/**
 * Bucket name rules: those of S3, so that every bucket is reachable through the S3 API too.
 *
 * <p>3 to 63 characters of lowercase letters, digits, '.' and '-'; starts and ends with a letter or digit; no
 * "..", no IP-address form. Underscores are also accepted because GCS bucket names may contain them.
 */
public final class BucketName {
  private static final Pattern IP_ADDRESS = Pattern.compile("\\d+\\.\\d+\\.\\d+\\.\\d+");

  private BucketName() {}

  /** Returns {@code name} when valid, else throws {@link InvalidNameException} saying what is wrong. */
  public static String requireValid(String name) {
    String problem = problem(name);
    if (problem != null) {
      throw new InvalidNameException("invalid bucket name '" + abbreviate(name) + "': " + problem);
    }
    return name;
  }

  /** What is wrong with {@code name}, or {@code null} when it is valid. */
  public static String problem(String name) {
    if (name == null || name.isEmpty()) {
      return "must not be empty";
    }
    if (name.length() < 3 || name.length() > 63) {
      return "must be 3 to 63 characters long";
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      boolean ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
      if (!ok) {
        return "may contain only lowercase letters, digits, '.', '-' and '_'";
      }
    }
    if (!Character.isLetterOrDigit(name.charAt(0)) || !Character.isLetterOrDigit(name.charAt(name.length() - 1))) {
      return "must start and end with a letter or digit";
    }
    if (name.contains("..")) {
      return "must not contain '..'";
    }
    if (IP_ADDRESS.matcher(name).matches()) {
      return "must not look like an IP address";
    }
    return null;
  }

  static String abbreviate(String s) {
    if (s == null) {
      return "";
    }
    return s.length() <= 80 ? s : s.substring(0, 77) + "...";
  }
}
