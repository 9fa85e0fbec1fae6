package io.granary.common.s3;

/**
 * The owner (or initiator) S3 documents name: {@code <Owner><ID/><DisplayName/></Owner>}. A single-tenant cluster
 * has one, the same everywhere.
 *
 * @param id canonical user id
 * @param displayName display name, or {@code null} to leave it out
 */
public record Owner(String id, String displayName) {
  /** The one owner of every bucket and object: a Granary cluster is a single tenant. */
  public static final Owner CLUSTER = new Owner("granary", "granary");
}
