package io.granary.clustermap.acl;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The S3 canned ACLs Granary keeps on buckets (in bucket metadata) and objects (in their record on the target).
 * A cluster has one tenant, so the only grants that matter are the owner's (always FULL_CONTROL) and anonymous
 * READ: {@code private} has none, {@code public-read} lets unsigned requests read. For a bucket that means listing
 * it; for an object, GET and HEAD of it (S3's semantics: a public-read bucket does not make its objects readable).
 */
public enum CannedAcl {
  PRIVATE("private"),
  PUBLIC_READ("public-read");

  /** Canned ACLs S3 defines that Granary does not keep: they are refused with 501, never taken for private. */
  public static final Set<String> UNSUPPORTED = Set.of("public-read-write", "authenticated-read",
      "bucket-owner-read", "bucket-owner-full-control", "log-delivery-write", "aws-exec-read");

  private final String wireName;

  CannedAcl(String wireName) {
    this.wireName = wireName;
  }

  /** The name S3 uses in {@code x-amz-acl}, and the form in bucket metadata JSON. */
  @JsonValue
  public String wireName() {
    return wireName;
  }

  /** Whether unsigned requests may read what carries this ACL. */
  public boolean publicRead() {
    return this == PUBLIC_READ;
  }

  /** The supported ACL named {@code name} (case-insensitive), or empty when it is not one Granary keeps. */
  public static Optional<CannedAcl> find(String name) {
    String n = name.trim().toLowerCase(Locale.ROOT);
    for (CannedAcl a : values()) {
      if (a.wireName.equals(n)) {
        return Optional.of(a);
      }
    }
    return Optional.empty();
  }

  /** For JSON: a name this version does not know reads as private, the safe side. */
  @JsonCreator
  static CannedAcl fromJson(String name) {
    return name == null ? PRIVATE : find(name).orElse(PRIVATE);
  }
}
