package io.granary.common.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.granary.clustermap.acl.CannedAcl;
import io.granary.common.error.ApiException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** An AccessControlPolicy body read as the canned ACL it spells out, as s3cmd setacl and the SDKs send one. */
class AccessControlPolicyBodyTest {
  private static final String OWNER_GRANT = "<Grant><Grantee xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" "
      + "xsi:type=\"CanonicalUser\"><ID>granary</ID></Grantee><Permission>FULL_CONTROL</Permission></Grant>";
  private static final String ALL_USERS_READ = "<Grant><Grantee xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\""
      + " xsi:type=\"Group\"><URI>http://acs.amazonaws.com/groups/global/AllUsers</URI></Grantee>"
      + "<Permission>READ</Permission></Grant>";

  private static byte[] policy(String grants) {
    return ("<AccessControlPolicy xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Owner><ID>granary</ID></Owner>"
        + "<AccessControlList>" + grants + "</AccessControlList></AccessControlPolicy>")
        .getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void ownerFullControlAlone_isPrivate_andWithAllUsersRead_isPublicRead() {
    assertThat(AccessControlPolicyBody.parse(policy(OWNER_GRANT))).isEqualTo(CannedAcl.PRIVATE);
    assertThat(AccessControlPolicyBody.parse(policy(ALL_USERS_READ + OWNER_GRANT))).isEqualTo(CannedAcl.PUBLIC_READ);
  }

  @Test
  void whatGetObjectAclAnswers_readsBackAsTheSameAcl() {
    for (CannedAcl acl : CannedAcl.values()) {
      byte[] doc = new AccessControlPolicy(Owner.CLUSTER, acl).toXml();
      assertThat(AccessControlPolicyBody.parse(doc)).isEqualTo(acl);
    }
  }

  @Test
  void grantsNoCannedAclExpresses_areNotImplemented() {
    String otherUser = "<Grant><Grantee><ID>someone</ID></Grantee><Permission>READ</Permission></Grant>";
    String allUsersWrite = ALL_USERS_READ.replace("READ</Permission>", "WRITE</Permission>");
    String email = "<Grant><Grantee><EmailAddress>a@b.c</EmailAddress></Grantee><Permission>READ</Permission></Grant>";
    for (String grants : new String[] {OWNER_GRANT + otherUser, OWNER_GRANT + allUsersWrite, OWNER_GRANT + email,
        ALL_USERS_READ, ""}) {
      assertThatThrownBy(() -> AccessControlPolicyBody.parse(policy(grants))).as(grants)
          .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.status().code()).isEqualTo(501));
    }
  }

  @Test
  void aDocumentThatIsNotAPolicy_isMalformedAclError() {
    for (String body : new String[] {"not xml", "<CreateBucketConfiguration/>", "<AccessControlPolicy/>",
        new String(policy("<Grant><Grantee><ID>granary</ID></Grantee></Grant>"), StandardCharsets.UTF_8),
        new String(policy(OWNER_GRANT.replace("FULL_CONTROL", "EVERYTHING")), StandardCharsets.UTF_8)}) {
      assertThatThrownBy(() -> AccessControlPolicyBody.parse(body.getBytes(StandardCharsets.UTF_8))).as(body)
          .isInstanceOfSatisfying(ApiException.class, e -> {
            assertThat(e.status().code()).isEqualTo(400);
            assertThat(e.code()).isEqualTo("MalformedACLError");
          });
    }
  }
}
