package io.granary.clustermap.bucket;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** Where a bucket's objects come from: Granary itself, or a remote cloud bucket it caches. */
public enum Provider {
  /** A bucket that lives only in this cluster. */
  AIS("ais", "ais"),
  /** An Amazon S3 (or S3-compatible) bucket. */
  AWS("aws", "s3"),
  /** A Google Cloud Storage bucket. */
  GCP("gcp", "gs");

  private final String wireName;
  private final String scheme;

  Provider(String wireName, String scheme) {
    this.wireName = wireName;
    this.scheme = scheme;
  }

  /** The normalized name used in placement keys and JSON: {@code ais}, {@code aws}, {@code gcp}. */
  @JsonValue
  public String wireName() {
    return wireName;
  }

  /** The URI scheme users type: {@code ais://}, {@code s3://}, {@code gs://}. */
  public String scheme() {
    return scheme;
  }

  /** Parses a provider name or its alias ({@code s3}, {@code gs}, {@code gcs}). */
  @JsonCreator
  public static Provider parse(String s) {
    if (s != null) {
      switch (s.toLowerCase(Locale.ROOT)) {
        case "ais", "local", "" -> {
          return AIS;
        }
        case "aws", "s3" -> {
          return AWS;
        }
        case "gcp", "gs", "gcs" -> {
          return GCP;
        }
        default -> { }
      }
    }
    throw new IllegalArgumentException("unknown provider '" + s + "': expected ais, s3 (aws) or gs (gcp)");
  }
}
