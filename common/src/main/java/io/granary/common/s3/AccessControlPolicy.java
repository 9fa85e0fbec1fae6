package io.granary.common.s3;

import io.granary.clustermap.acl.CannedAcl;

/**
 * The GetBucketAcl and GetObjectAcl answer for a canned ACL, as S3 writes it: the owner with FULL_CONTROL, and for
 * {@code public-read} a READ grant to the AllUsers group.
 *
 * @param owner the bucket's or object's owner
 * @param acl the canned ACL to express as grants
 */
public record AccessControlPolicy(Owner owner, CannedAcl acl) implements S3XmlDocument {
  /** The group S3 names for everyone, signed or not. */
  public static final String ALL_USERS = "http://acs.amazonaws.com/groups/global/AllUsers";

  @Override
  public void write(S3XmlWriter xml) {
    xml.startRoot("AccessControlPolicy").owner("Owner", owner).start("AccessControlList");
    xml.start("Grant").startTyped("Grantee", "CanonicalUser").element("ID", owner.id())
        .optional("DisplayName", owner.displayName()).end("Grantee").element("Permission", "FULL_CONTROL").end("Grant");
    if (acl.publicRead()) {
      xml.start("Grant").startTyped("Grantee", "Group").element("URI", ALL_USERS).end("Grantee")
          .element("Permission", "READ").end("Grant");
    }
    xml.end("AccessControlList").end("AccessControlPolicy");
  }
}
