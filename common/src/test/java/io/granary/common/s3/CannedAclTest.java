package io.granary.common.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.granary.clustermap.acl.CannedAcl;
import io.granary.common.error.ApiException;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetBucketAclResponse;
import software.amazon.awssdk.services.s3.model.GetObjectAclResponse;
import software.amazon.awssdk.services.s3.model.Grant;
import software.amazon.awssdk.services.s3.model.Permission;
import software.amazon.awssdk.services.s3.model.Type;

/** The x-amz-acl header's parsing and the AccessControlPolicy document, read back by aws-sdk-java-v2 itself. */
class CannedAclTest {
  private static FakeS3Endpoint endpoint;
  private static S3Client s3;

  @BeforeAll
  static void start() throws IOException {
    endpoint = new FakeS3Endpoint();
    s3 = S3Client.builder().endpointOverride(endpoint.uri()).region(Region.US_EAST_1)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIDEXAMPLE", "secret")))
        .forcePathStyle(true).httpClient(UrlConnectionHttpClient.create()).build();
  }

  @AfterAll
  static void stop() {
    s3.close();
    endpoint.close();
  }

  private static HttpHeaders headers(String name, String value) {
    return new DefaultHttpHeaders().add(name, value);
  }

  @Test
  void parse_noAclHeader_isNull() {
    assertThat(CannedAclHeader.parse(new DefaultHttpHeaders())).isNull();
  }

  @Test
  void parse_supported_returnsAcl() {
    assertThat(CannedAclHeader.parse(headers("x-amz-acl", "private"))).isEqualTo(CannedAcl.PRIVATE);
    assertThat(CannedAclHeader.parse(headers("X-Amz-Acl", "public-read"))).isEqualTo(CannedAcl.PUBLIC_READ);
  }

  @ParameterizedTest
  @ValueSource(strings = {"public-read-write", "authenticated-read", "bucket-owner-read",
      "bucket-owner-full-control", "log-delivery-write", "aws-exec-read"})
  void parse_unsupportedCanned_is501(String acl) {
    assertThatThrownBy(() -> CannedAclHeader.parse(headers("x-amz-acl", acl)))
        .isInstanceOfSatisfying(ApiException.class, e -> {
          assertThat(e.status().code()).isEqualTo(501);
          assertThat(e.code()).isEqualTo("NotImplemented");
          assertThat(e.getMessage()).contains(acl).contains("private and public-read");
        });
  }

  @Test
  void parse_unknownValue_is400InvalidArgument() {
    assertThatThrownBy(() -> CannedAclHeader.parse(headers("x-amz-acl", "world-writable")))
        .isInstanceOfSatisfying(S3ApiException.class, e -> {
          assertThat(e.status().code()).isEqualTo(400);
          assertThat(e.code()).isEqualTo("InvalidArgument");
          assertThat(e.details()).containsEntry("ArgumentName", "x-amz-acl");
        });
  }

  @Test
  void parse_explicitGrant_is501_evenWithCannedAcl() {
    HttpHeaders h = headers("x-amz-acl", "private").add("x-amz-grant-read", "uri=\"" + AccessControlPolicy.ALL_USERS
        + "\"");
    assertThatThrownBy(() -> CannedAclHeader.parse(h))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.status().code()).isEqualTo(501));
  }

  @Test
  void policy_private_sdkReadsOwnerFullControlOnly() {
    endpoint.respond(FakeS3Endpoint.Canned.xml(new AccessControlPolicy(Owner.CLUSTER, CannedAcl.PRIVATE)));
    GetBucketAclResponse r = s3.getBucketAcl(b -> b.bucket("bkt"));
    assertThat(r.owner().id()).isEqualTo("granary");
    assertThat(r.grants()).hasSize(1);
    Grant g = r.grants().get(0);
    assertThat(g.grantee().type()).isEqualTo(Type.CANONICAL_USER);
    assertThat(g.grantee().id()).isEqualTo("granary");
    assertThat(g.permission()).isEqualTo(Permission.FULL_CONTROL);
  }

  @Test
  void policy_publicRead_sdkReadsAllUsersRead() {
    endpoint.respond(FakeS3Endpoint.Canned.xml(new AccessControlPolicy(Owner.CLUSTER, CannedAcl.PUBLIC_READ)));
    GetObjectAclResponse r = s3.getObjectAcl(b -> b.bucket("bkt").key("k"));
    List<Grant> grants = r.grants();
    assertThat(grants).hasSize(2);
    assertThat(grants.get(1).grantee().type()).isEqualTo(Type.GROUP);
    assertThat(grants.get(1).grantee().uri()).isEqualTo("http://acs.amazonaws.com/groups/global/AllUsers");
    assertThat(grants.get(1).permission()).isEqualTo(Permission.READ);
  }

  @Test
  void policy_document_isS3Form() {
    String xml = new String(new AccessControlPolicy(Owner.CLUSTER, CannedAcl.PUBLIC_READ).toXml());
    assertThat(xml).contains("<AccessControlPolicy xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Owner>")
        .contains("<Grantee xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xsi:type=\"Group\"><URI>");
  }
}
