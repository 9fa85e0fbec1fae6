package io.granary.loader;

import java.util.Locale;

/** The API a run drives. */
public enum Protocol {
  /** {@code /v1/objects/BUCKET/NAME} on a proxy, following its 307 to the owning target. */
  NATIVE,
  /** The S3 API (aws-sdk-java-v2, path-style, SigV4). */
  S3,
  /** Plain {@code GET BASE_URL/NAME}, so the same run can be pointed at nginx or any static file server. */
  HTTP;

  public static Protocol parse(String s) {
    for (Protocol p : values()) {
      if (p.wireName().equals(s == null ? "" : s.toLowerCase(Locale.ROOT))) {
        return p;
      }
    }
    throw new IllegalArgumentException("unknown protocol '" + s + "': use native, s3 or http");
  }

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
