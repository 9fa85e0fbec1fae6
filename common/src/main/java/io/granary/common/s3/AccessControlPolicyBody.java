package io.granary.common.s3;

import io.granary.clustermap.acl.CannedAcl;
import io.granary.common.error.NotImplementedException;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.Locale;
import java.util.Set;

/**
 * The AccessControlPolicy body of PutBucketAcl / PutObjectAcl, read as the canned ACL it spells out. Tools that
 * edit ACLs (s3cmd {@code setacl}) read the policy, add or drop the AllUsers READ grant and PUT the whole document
 * back, so a policy is kept when its grants are exactly those of a canned ACL Granary keeps: the owner's
 * FULL_CONTROL ({@code private}), plus READ for AllUsers ({@code public-read}). Any other grant is 501, never
 * dropped quietly; a document that is not a policy is 400 MalformedACLError, as on S3.
 */
public final class AccessControlPolicyBody {
  public static final int MAX_BYTES = 64 * 1024;
  static final int MAX_ELEMENTS = 1000;
  static final String MALFORMED_ACL = "MalformedACLError";
  private static final Set<String> PERMISSIONS = Set.of("FULL_CONTROL", "READ", "WRITE", "READ_ACP", "WRITE_ACP");

  private AccessControlPolicyBody() {}

  /** The canned ACL {@code body} expresses; 400 for a malformed policy, 501 for grants Granary does not keep. */
  public static CannedAcl parse(byte[] body) {
    XmlElement root;
    try {
      root = RequestXmlReader.parse(body, "AccessControlPolicy", MAX_BYTES, MAX_ELEMENTS);
    } catch (S3ApiException e) {
      if (!e.code().equals(S3ApiException.MALFORMED_XML)) {
        throw e;
      }
      throw malformed(e.getMessage());
    }
    XmlElement list = one(root, "AccessControlList");
    boolean ownerFull = false;
    boolean allUsersRead = false;
    for (XmlElement grant : list.all("Grant")) {
      XmlElement grantee = one(grant, "Grantee");
      String permission = text(grant, "Permission").toUpperCase(Locale.ROOT);
      if (!PERMISSIONS.contains(permission)) {
        throw malformed("unknown permission '" + RequestXmlReader.abbreviate(permission) + "'");
      }
      String id = grantee.childText("ID");
      String uri = grantee.childText("URI");
      if (id != null && id.strip().equals(Owner.CLUSTER.id()) && permission.equals("FULL_CONTROL")) {
        ownerFull = true;
      } else if (uri != null && uri.strip().equals(AccessControlPolicy.ALL_USERS) && permission.equals("READ")) {
        allUsersRead = true;
      } else {
        throw new NotImplementedException("the grant of " + permission + " to " + describe(grantee) + " is not "
            + "implemented; Granary keeps only the canned ACLs private (the owner '" + Owner.CLUSTER.id()
            + "' with FULL_CONTROL) and public-read (and AllUsers with READ)");
      }
    }
    if (!ownerFull) {
      throw new NotImplementedException("a policy without FULL_CONTROL for the owner '" + Owner.CLUSTER.id()
          + "' is not implemented; Granary keeps only the canned ACLs private and public-read");
    }
    return allUsersRead ? CannedAcl.PUBLIC_READ : CannedAcl.PRIVATE;
  }

  private static XmlElement one(XmlElement parent, String name) {
    var found = parent.all(name);
    if (found.size() != 1) {
      throw malformed("<" + parent.name() + "> must have exactly one <" + name + ">, it has " + found.size());
    }
    return found.get(0);
  }

  private static String text(XmlElement parent, String name) {
    String t = parent.childText(name);
    if (t == null || t.isBlank()) {
      throw malformed("<" + parent.name() + "> has no <" + name + ">");
    }
    return t.strip();
  }

  private static String describe(XmlElement grantee) {
    for (String name : new String[] {"ID", "URI", "EmailAddress"}) {
      String v = grantee.childText(name);
      if (v != null) {
        return name + " '" + RequestXmlReader.abbreviate(v.strip()) + "'";
      }
    }
    return "a grantee with no ID, URI or EmailAddress";
  }

  private static S3ApiException malformed(String why) {
    return new S3ApiException(HttpResponseStatus.BAD_REQUEST, MALFORMED_ACL,
        "the XML you provided was not well-formed or did not validate against the AccessControlPolicy schema: " + why);
  }
}
