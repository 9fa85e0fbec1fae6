package io.granary.clustermap.bucket;

import java.nio.charset.StandardCharsets;

/**
 * Object name rules. Names are any UTF-8 text of 1 to {@value #MAX_BYTES} bytes (the S3 limit) and may contain
 * slashes, but no name can reach outside its bucket: no empty name, no leading '/', no "." or ".." path segment,
 * no NUL. Names are never used as file paths (targets store files under a hash of the name); these rules keep
 * names that every S3 client and tool can round-trip.
 */
public final class ObjectName {
  /** The longest name in UTF-8 bytes. */
  public static final int MAX_BYTES = 1024;

  private ObjectName() {}

  /** Returns {@code name} when valid, else throws {@link InvalidNameException} saying what is wrong. */
  public static String requireValid(String name) {
    String problem = problem(name);
    if (problem != null) {
      throw new InvalidNameException("invalid object name '" + BucketName.abbreviate(name) + "': " + problem);
    }
    return name;
  }

  /** What is wrong with {@code name}, or {@code null} when it is valid. */
  public static String problem(String name) {
    if (name == null || name.isEmpty()) {
      return "must not be empty";
    }
    if (name.length() > MAX_BYTES || name.getBytes(StandardCharsets.UTF_8).length > MAX_BYTES) {
      if (name.getBytes(StandardCharsets.UTF_8).length > MAX_BYTES) {
        return "longer than " + MAX_BYTES + " bytes";
      }
    }
    if (name.charAt(0) == '/') {
      return "must not start with '/'";
    }
    if (name.indexOf('\0') >= 0) {
      return "must not contain NUL";
    }
    int start = 0;
    while (start <= name.length()) {
      int end = name.indexOf('/', start);
      if (end < 0) {
        end = name.length();
      }
      int len = end - start;
      if ((len == 1 && name.charAt(start) == '.') || (len == 2 && name.startsWith("..", start))) {
        return "must not contain '.' or '..' path segments";
      }
      start = end + 1;
    }
    return null;
  }
}
