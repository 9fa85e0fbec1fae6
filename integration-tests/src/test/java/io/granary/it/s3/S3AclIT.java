package io.granary.it.s3;

import static io.granary.it.s3.S3Support.assertS3Error;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.Rebalance;
import io.granary.it.support.Content;
import io.granary.it.support.Http;
import io.granary.it.support.Resources;
import io.granary.it.support.TestCluster;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketCannedACL;
import software.amazon.awssdk.services.s3.model.Grant;
import software.amazon.awssdk.services.s3.model.ObjectAttributes;
import software.amazon.awssdk.services.s3.model.ObjectCannedACL;
import software.amazon.awssdk.services.s3.model.Permission;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.s3.model.Type;

/**
 * Canned ACLs (private, public-read) on buckets and objects, set and read back with aws-sdk-java-v2, and what
 * unsigned clients may do with them: read public-read objects, list public-read buckets, and nothing else. Other
 * ACL forms are refused and change nothing. Last, an object's ACL moves with it to a new target.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class S3AclIT {
  private static final String PUBLIC = "acl-public";
  private static final String PRIVATE = "acl-private";
  private static final String ALL_USERS = "http://acs.amazonaws.com/groups/global/AllUsers";
  private static final byte[] DATA = Content.bytes(7, 300_000);
  private static TestCluster cluster;
  private static S3Client s3;
  private static S3Client anonymous;

  @BeforeAll
  static void start() throws Exception {
    cluster = TestCluster.start("s3acl", 1);
    s3 = S3Support.sync(cluster);
    anonymous = S3Client.builder().endpointOverride(URI.create(cluster.endpoint())).region(S3Support.REGION)
        .forcePathStyle(true).credentialsProvider(AnonymousCredentialsProvider.create())
        .httpClientBuilder(ApacheHttpClient.builder())
        .overrideConfiguration(o -> o.retryStrategy(b -> b.maxAttempts(1))).build();
    s3.createBucket(b -> b.bucket(PUBLIC).acl(BucketCannedACL.PUBLIC_READ));
    s3.createBucket(b -> b.bucket(PRIVATE));
    for (String bucket : List.of(PUBLIC, PRIVATE)) {
      s3.putObject(b -> b.bucket(bucket).key("open").acl(ObjectCannedACL.PUBLIC_READ), RequestBody.fromBytes(DATA));
      s3.putObject(b -> b.bucket(bucket).key("closed"), RequestBody.fromBytes(DATA));
    }
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(anonymous, s3, cluster);
  }

  private static boolean publicRead(List<Grant> grants) {
    assertThat(grants).anySatisfy(g -> {
      assertThat(g.grantee().type()).isEqualTo(Type.CANONICAL_USER);
      assertThat(g.permission()).isEqualTo(Permission.FULL_CONTROL);
    });
    List<Grant> others = grants.stream().filter(g -> g.grantee().type() != Type.CANONICAL_USER).toList();
    if (others.isEmpty()) {
      return false;
    }
    assertThat(others).singleElement().satisfies(g -> {
      assertThat(g.grantee().type()).isEqualTo(Type.GROUP);
      assertThat(g.grantee().uri()).isEqualTo(ALL_USERS);
      assertThat(g.permission()).isEqualTo(Permission.READ);
    });
    return true;
  }

  private static boolean objectPublic(String bucket, String key) {
    return publicRead(s3.getObjectAcl(b -> b.bucket(bucket).key(key)).grants());
  }

  private static boolean bucketPublic(String bucket) {
    return publicRead(s3.getBucketAcl(b -> b.bucket(bucket)).grants());
  }

  private static Http.Reply unsigned(String method, String pathAndQuery, byte[] body) throws Exception {
    HttpRequest.BodyPublisher p = body == null ? HttpRequest.BodyPublishers.noBody()
        : HttpRequest.BodyPublishers.ofByteArray(body);
    return Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(cluster.endpoint() + pathAndQuery))
        .method(method, p));
  }

  private static void assertDenied(Http.Reply r, String what) {
    assertThat(r.status()).as(what + ": " + r.bodyText()).isEqualTo(403);
    if (r.body().length > 0) {
      assertThat(r.bodyText()).as(what).contains("<Code>AccessDenied</Code>");
    }
  }

  @Test
  @Order(1)
  void bucketAcl_setAtCreateAndByPutBucketAcl_readsBackAsS3WritesIt() {
    assertThat(bucketPublic(PUBLIC)).isTrue();
    assertThat(bucketPublic(PRIVATE)).isFalse();
    String flip = "acl-flip";
    s3.createBucket(b -> b.bucket(flip).acl(BucketCannedACL.PRIVATE));
    assertThat(bucketPublic(flip)).isFalse();
    s3.putBucketAcl(b -> b.bucket(flip).acl(BucketCannedACL.PUBLIC_READ));
    assertThat(bucketPublic(flip)).isTrue();
    s3.putBucketAcl(b -> b.bucket(flip).acl(BucketCannedACL.PRIVATE));
    assertThat(bucketPublic(flip)).isFalse();
    assertThat(s3.getBucketAcl(b -> b.bucket(flip)).owner().id()).isEqualTo("granary");
    s3.deleteBucket(b -> b.bucket(flip));
  }

  @Test
  @Order(1)
  void objectAcl_setByPutCopyMultipartAndPutObjectAcl_readsBack_contentUnchanged() {
    assertThat(objectPublic(PRIVATE, "open")).isTrue();
    assertThat(objectPublic(PRIVATE, "closed")).isFalse();

    String key = "flip";
    String etag = s3.putObject(b -> b.bucket(PRIVATE).key(key), RequestBody.fromBytes(DATA)).eTag();
    s3.putObjectAcl(b -> b.bucket(PRIVATE).key(key).acl(ObjectCannedACL.PUBLIC_READ));
    assertThat(objectPublic(PRIVATE, key)).isTrue();
    var head = s3.headObject(b -> b.bucket(PRIVATE).key(key));
    assertThat(head.eTag()).isEqualTo(etag);
    assertThat(s3.getObjectAsBytes(b -> b.bucket(PRIVATE).key(key)).asByteArray()).isEqualTo(DATA);
    s3.putObjectAcl(b -> b.bucket(PRIVATE).key(key).acl(ObjectCannedACL.PRIVATE));
    assertThat(objectPublic(PRIVATE, key)).isFalse();
    // A new version takes the ACL its write names, private without one, as on S3.
    s3.putObjectAcl(b -> b.bucket(PRIVATE).key(key).acl(ObjectCannedACL.PUBLIC_READ));
    s3.putObject(b -> b.bucket(PRIVATE).key(key), RequestBody.fromBytes(DATA));
    assertThat(objectPublic(PRIVATE, key)).isFalse();

    // CopyObject takes the request's ACL, never the source's.
    s3.copyObject(b -> b.sourceBucket(PRIVATE).sourceKey("open").destinationBucket(PRIVATE).destinationKey("copy"));
    assertThat(objectPublic(PRIVATE, "copy")).isFalse();
    s3.copyObject(b -> b.sourceBucket(PRIVATE).sourceKey("closed").destinationBucket(PRIVATE).destinationKey("copy")
        .acl(ObjectCannedACL.PUBLIC_READ));
    assertThat(objectPublic(PRIVATE, "copy")).isTrue();

    String id = s3.createMultipartUpload(b -> b.bucket(PRIVATE).key("mpu").acl(ObjectCannedACL.PUBLIC_READ))
        .uploadId();
    String partEtag = s3.uploadPart(b -> b.bucket(PRIVATE).key("mpu").uploadId(id).partNumber(1),
        RequestBody.fromBytes(DATA)).eTag();
    s3.completeMultipartUpload(b -> b.bucket(PRIVATE).key("mpu").uploadId(id)
        .multipartUpload(m -> m.parts(p -> p.partNumber(1).eTag(partEtag))));
    assertThat(objectPublic(PRIVATE, "mpu")).isTrue();
  }

  @Test
  @Order(1)
  void anonymousRead_ofPublicReadObject_isByteExact_ofPrivateObject_is403() throws Exception {
    for (String bucket : List.of(PUBLIC, PRIVATE)) {
      Http.Reply get = unsigned("GET", "/" + bucket + "/open", null);
      assertThat(get.status()).as(bucket + ": " + get.bodyText()).isEqualTo(200);
      assertThat(get.body()).isEqualTo(DATA);
      Http.Reply head = unsigned("HEAD", "/" + bucket + "/open", null);
      assertThat(head.status()).isEqualTo(200);
      assertThat(head.header("content-length")).contains(String.valueOf(DATA.length));
      assertThat(anonymous.getObjectAsBytes(b -> b.bucket(bucket).key("open")).asByteArray()).isEqualTo(DATA);
      assertThat(anonymous.headObject(b -> b.bucket(bucket).key("open")).contentLength()).isEqualTo(DATA.length);
      Http.Reply range = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(
          URI.create(cluster.endpoint() + "/" + bucket + "/open")).header("Range", "bytes=10-19").GET());
      assertThat(range.status()).isEqualTo(206);
      assertThat(range.body()).isEqualTo(java.util.Arrays.copyOfRange(DATA, 10, 20));

      // A public-read bucket does not make its objects readable (S3: the bucket's READ is the right to list).
      assertDenied(unsigned("GET", "/" + bucket + "/closed", null), bucket + " GET closed");
      assertDenied(unsigned("HEAD", "/" + bucket + "/closed", null), bucket + " HEAD closed");
      assertS3Error(() -> anonymous.getObjectAsBytes(b -> b.bucket(bucket).key("closed")), 403, "AccessDenied");
      // Conditions are not answered either: nothing of a private object's ETag leaks through a 304.
      assertDenied(Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(cluster.endpoint() + "/" + bucket
          + "/closed")).header("If-None-Match", "*").GET()), bucket + " conditional GET closed");
    }
    // A missing key: 404 where a listing would say so anyway, else 403.
    assertThat(unsigned("GET", "/" + PUBLIC + "/missing", null).status()).isEqualTo(404);
    assertDenied(unsigned("GET", "/" + PRIVATE + "/missing", null), "missing key in a private bucket");
    assertDenied(unsigned("GET", "/no-such-bucket/open", null), "missing bucket");
  }

  private static Http.Reply unsignedAttributes(String bucket, String key) throws Exception {
    return Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(cluster.endpoint() + "/" + bucket + "/" + key
        + "?attributes")).header("x-amz-object-attributes", "ETag,ObjectSize").GET());
  }

  @Test
  @Order(1)
  void anonymousGetObjectAttributes_ofPublicReadObject_is200_ofPrivateObject_is403_missingKeyAsGetObject()
      throws Exception {
    String etag = s3.headObject(b -> b.bucket(PRIVATE).key("open")).eTag().replace("\"", "");
    for (String bucket : List.of(PUBLIC, PRIVATE)) {
      Http.Reply open = unsignedAttributes(bucket, "open");
      assertThat(open.status()).as(bucket + ": " + open.bodyText()).isEqualTo(200);
      assertThat(open.bodyText()).contains("<ETag>" + etag + "</ETag>")
          .contains("<ObjectSize>" + DATA.length + "</ObjectSize>");
      var sdk = anonymous.getObjectAttributes(b -> b.bucket(bucket).key("open")
          .objectAttributes(ObjectAttributes.E_TAG, ObjectAttributes.OBJECT_SIZE));
      assertThat(sdk.eTag()).isEqualTo(etag);
      assertThat(sdk.objectSize()).isEqualTo(DATA.length);

      // A public-read bucket does not make its objects' attributes readable either.
      Http.Reply closed = unsignedAttributes(bucket, "closed");
      assertDenied(closed, bucket + " attributes of closed");
      assertThat(closed.bodyText()).doesNotContain(etag);
      assertS3Error(() -> anonymous.getObjectAttributes(b -> b.bucket(bucket).key("closed")
          .objectAttributes(ObjectAttributes.E_TAG)), 403, "AccessDenied");
    }
    // A missing key answers as GetObject does: 404 where a listing would say so anyway, else 403.
    Http.Reply missing = unsignedAttributes(PUBLIC, "missing");
    assertThat(missing.status()).as(missing.bodyText()).isEqualTo(404);
    assertThat(missing.bodyText()).contains("<Code>NoSuchKey</Code>");
    assertDenied(unsignedAttributes(PRIVATE, "missing"), "attributes of a missing key in a private bucket");
    assertDenied(unsignedAttributes("no-such-bucket", "open"), "attributes in a missing bucket");
    // Only a GET: the same sub-resource with a write is refused and changes nothing.
    assertDenied(Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(cluster.endpoint() + "/" + PUBLIC
        + "/open?attributes")).PUT(HttpRequest.BodyPublishers.ofString("x"))), "PUT ?attributes");
    assertThat(s3.getObjectAsBytes(b -> b.bucket(PUBLIC).key("open")).asByteArray()).isEqualTo(DATA);
  }

  @Test
  @Order(1)
  void anonymousList_ofPublicReadBucket_is200_ofPrivateBucket_is403() throws Exception {
    assertThat(anonymous.listObjectsV2(b -> b.bucket(PUBLIC)).contents()).extracting(S3Object::key)
        .contains("open", "closed");
    assertThat(anonymous.listObjects(b -> b.bucket(PUBLIC)).contents()).extracting(S3Object::key)
        .contains("open", "closed");
    assertThat(unsigned("GET", "/" + PUBLIC + "?list-type=2&prefix=op", null).bodyText()).contains("<Key>open</Key>");
    assertThat(unsigned("HEAD", "/" + PUBLIC, null).status()).isEqualTo(200);

    assertS3Error(() -> anonymous.listObjectsV2(b -> b.bucket(PRIVATE)), 403, "AccessDenied");
    assertDenied(unsigned("GET", "/" + PRIVATE, null), "list V1 private");
    assertDenied(unsigned("HEAD", "/" + PRIVATE, null), "HEAD private bucket");
    assertDenied(unsigned("GET", "/", null), "ListBuckets");
    for (String sub : List.of("?acl", "?uploads", "?location", "?versioning")) {
      assertDenied(unsigned("GET", "/" + PUBLIC + sub, null), "GET public bucket " + sub);
    }
  }

  @Test
  @Order(1)
  void anonymousWrites_deletesAndAclChanges_are403_andChangeNothing() throws Exception {
    byte[] other = "overwritten".getBytes(StandardCharsets.UTF_8);
    List<String[]> attempts = List.of(
        new String[] {"PUT", "/" + PUBLIC + "/open"}, new String[] {"PUT", "/" + PUBLIC + "/new-anon"},
        new String[] {"DELETE", "/" + PUBLIC + "/open"}, new String[] {"PUT", "/" + PUBLIC + "/open?acl"},
        new String[] {"GET", "/" + PUBLIC + "/open?acl"}, new String[] {"PUT", "/" + PUBLIC + "?acl"},
        new String[] {"PUT", "/" + PRIVATE + "?acl"}, new String[] {"PUT", "/" + PRIVATE + "/closed?acl"},
        new String[] {"POST", "/" + PUBLIC + "/mpu-anon?uploads"}, new String[] {"DELETE", "/" + PUBLIC},
        new String[] {"PUT", "/acl-anon-bucket"});
    for (String[] a : attempts) {
      boolean body = a[0].equals("PUT") && !a[1].contains("?");
      Http.Reply r = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(cluster.endpoint() + a[1]))
          .header("x-amz-acl", "public-read")
          .method(a[0], body ? HttpRequest.BodyPublishers.ofByteArray(other) : HttpRequest.BodyPublishers.noBody()));
      assertDenied(r, a[0] + " " + a[1]);
    }
    Http.Reply copy = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(
            URI.create(cluster.endpoint() + "/" + PUBLIC + "/copied-anon"))
        .header("x-amz-copy-source", "/" + PUBLIC + "/open").PUT(HttpRequest.BodyPublishers.noBody()));
    assertDenied(copy, "anonymous CopyObject");
    Http.Reply multiDelete = unsigned("POST", "/" + PUBLIC + "?delete",
        "<Delete><Object><Key>open</Key></Object></Delete>".getBytes(StandardCharsets.UTF_8));
    assertDenied(multiDelete, "anonymous DeleteObjects");
    // The granary-anonymous mark a client sends is not the proxy's: it is dropped, and still nothing is written.
    Http.Reply marked = Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(
        URI.create(cluster.endpoint() + "/" + PUBLIC + "/open")).header("granary-anonymous", "0")
        .PUT(HttpRequest.BodyPublishers.ofByteArray(other)));
    assertDenied(marked, "marked PUT");

    assertThat(s3.getObjectAsBytes(b -> b.bucket(PUBLIC).key("open")).asByteArray()).isEqualTo(DATA);
    assertThat(objectPublic(PUBLIC, "open")).isTrue();
    assertThat(objectPublic(PRIVATE, "closed")).isFalse();
    assertThat(bucketPublic(PUBLIC)).isTrue();
    assertThat(bucketPublic(PRIVATE)).isFalse();
    assertThat(s3.listObjectsV2(b -> b.bucket(PUBLIC)).contents()).extracting(S3Object::key)
        .doesNotContain("new-anon", "copied-anon", "mpu-anon");
    assertThat(s3.listMultipartUploads(b -> b.bucket(PUBLIC)).uploads()).isEmpty();
    assertThat(s3.listBuckets().buckets()).noneMatch(b -> b.name().equals("acl-anon-bucket"));
  }

  @Test
  @Order(1)
  void unsupportedAcls_are501_unknownAcls_are400_andChangeNothing() throws Exception {
    for (String acl : List.of("public-read-write", "authenticated-read", "bucket-owner-read",
        "bucket-owner-full-control", "log-delivery-write", "aws-exec-read")) {
      assertS3Error(() -> s3.putObject(b -> b.bucket(PRIVATE).key("refused").acl(acl), RequestBody.fromString("x")),
          501, "NotImplemented");
      assertS3Error(() -> s3.putObjectAcl(b -> b.bucket(PRIVATE).key("open").acl(acl)), 501, "NotImplemented");
      assertS3Error(() -> s3.putBucketAcl(b -> b.bucket(PUBLIC).acl(acl)), 501, "NotImplemented");
      assertS3Error(() -> s3.createBucket(b -> b.bucket("acl-refused").acl(acl)), 501, "NotImplemented");
      assertS3Error(() -> s3.createMultipartUpload(b -> b.bucket(PRIVATE).key("refused").acl(acl)), 501,
          "NotImplemented");
    }
    assertS3Error(() -> s3.putObject(b -> b.bucket(PRIVATE).key("refused").acl("everyone"),
        RequestBody.fromString("x")), 400, "InvalidArgument");
    assertS3Error(() -> s3.putBucketAcl(b -> b.bucket(PUBLIC).acl("everyone")), 400, "InvalidArgument");
    assertS3Error(() -> s3.putObjectAcl(b -> b.bucket(PRIVATE).key("open").acl("everyone")), 400, "InvalidArgument");
    // Explicit grants and an AccessControlPolicy body: canned ACLs only.
    assertS3Error(() -> s3.putObjectAcl(b -> b.bucket(PRIVATE).key("closed").grantRead("uri=" + ALL_USERS)), 501,
        "NotImplemented");
    assertS3Error(() -> s3.putBucketAcl(b -> b.bucket(PRIVATE).grantRead("uri=" + ALL_USERS)), 501,
        "NotImplemented");
    assertS3Error(() -> s3.putObject(b -> b.bucket(PRIVATE).key("refused").grantRead("uri=" + ALL_USERS),
        RequestBody.fromString("x")), 501, "NotImplemented");
    assertS3Error(() -> s3.putBucketAcl(b -> b.bucket(PRIVATE).accessControlPolicy(p -> p
        .owner(o -> o.id("granary")).grants(Grant.builder().permission(Permission.READ)
            .grantee(g -> g.type(Type.GROUP).uri(ALL_USERS)).build()))), 501, "NotImplemented");
    String policy = "<AccessControlPolicy><Owner><ID>granary</ID></Owner><AccessControlList/></AccessControlPolicy>";
    Http.Reply body = S3Support.sendSigned(cluster, "PUT", "/" + PUBLIC + "?acl", Map.of(),
        policy.getBytes(StandardCharsets.UTF_8), policy.getBytes(StandardCharsets.UTF_8));
    assertThat(body.status()).as(body.bodyText()).isEqualTo(501);
    Http.Reply none = S3Support.sendSigned(cluster, "PUT", "/" + PRIVATE + "/open?acl", Map.of(), null, null);
    assertThat(none.status()).as(none.bodyText()).isEqualTo(400);

    assertThat(s3.listObjectsV2(b -> b.bucket(PRIVATE)).contents()).extracting(S3Object::key)
        .doesNotContain("refused");
    assertThat(s3.listMultipartUploads(b -> b.bucket(PRIVATE)).uploads()).isEmpty();
    assertThat(s3.listBuckets().buckets()).noneMatch(b -> b.name().equals("acl-refused"));
    assertThat(bucketPublic(PUBLIC)).isTrue();
    assertThat(bucketPublic(PRIVATE)).isFalse();
    assertThat(objectPublic(PRIVATE, "open")).isTrue();
    assertThat(objectPublic(PRIVATE, "closed")).isFalse();
  }

  @Test
  @Order(1)
  void aclPolicyBodies_spellingOutACannedAcl_areKept_asS3cmdSetaclSendsThem() throws Exception {
    String bucket = "acl-policy";
    s3.createBucket(b -> b.bucket(bucket));
    s3.putObject(b -> b.bucket(bucket).key("k"), RequestBody.fromBytes(DATA));
    Grant owner = Grant.builder().permission(Permission.FULL_CONTROL)
        .grantee(g -> g.type(Type.CANONICAL_USER).id("granary")).build();
    Grant allUsersRead = Grant.builder().permission(Permission.READ)
        .grantee(g -> g.type(Type.GROUP).uri(ALL_USERS)).build();
    s3.putObjectAcl(b -> b.bucket(bucket).key("k").accessControlPolicy(p -> p.owner(o -> o.id("granary"))
        .grants(owner, allUsersRead)));
    assertThat(objectPublic(bucket, "k")).isTrue();
    assertThat(anonymous.getObjectAsBytes(b -> b.bucket(bucket).key("k")).asByteArray()).isEqualTo(DATA);
    s3.putBucketAcl(b -> b.bucket(bucket).accessControlPolicy(p -> p.owner(o -> o.id("granary"))
        .grants(owner, allUsersRead)));
    assertThat(bucketPublic(bucket)).isTrue();
    assertThat(anonymous.listObjectsV2(b -> b.bucket(bucket)).contents()).extracting(S3Object::key)
        .containsExactly("k");

    // GetObjectAcl's own answer, PUT back: what s3cmd setacl --acl-private does
    s3.putObjectAcl(b -> b.bucket(bucket).key("k").accessControlPolicy(p -> p.owner(o -> o.id("granary"))
        .grants(owner)));
    assertThat(objectPublic(bucket, "k")).isFalse();
    assertDenied(unsigned("GET", "/" + bucket + "/k", null), "GET of an object made private by a policy");
    s3.putBucketAcl(b -> b.bucket(bucket).accessControlPolicy(p -> p.owner(o -> o.id("granary")).grants(owner)));
    assertThat(bucketPublic(bucket)).isFalse();

    // refused, changing nothing: a header and a body; a malformed policy; a grant to someone else
    byte[] publicPolicy = ("<AccessControlPolicy><Owner><ID>granary</ID></Owner><AccessControlList>"
        + "<Grant><Grantee><ID>granary</ID></Grantee><Permission>FULL_CONTROL</Permission></Grant>"
        + "<Grant><Grantee><URI>" + ALL_USERS + "</URI></Grantee><Permission>READ</Permission></Grant>"
        + "</AccessControlList></AccessControlPolicy>").getBytes(StandardCharsets.UTF_8);
    Http.Reply both = S3Support.sendSigned(cluster, "PUT", "/" + bucket + "/k?acl", Map.of("x-amz-acl", "private"),
        publicPolicy, publicPolicy);
    assertThat(both.status()).as(both.bodyText()).isEqualTo(400);
    assertThat(both.bodyText()).contains("<Code>InvalidRequest</Code>");
    byte[] notAPolicy = "<AccessControlPolicy><Owner/></AccessControlPolicy>".getBytes(StandardCharsets.UTF_8);
    for (String path : List.of("/" + bucket + "/k?acl", "/" + bucket + "?acl")) {
      Http.Reply malformed = S3Support.sendSigned(cluster, "PUT", path, Map.of(), notAPolicy, notAPolicy);
      assertThat(malformed.status()).as(malformed.bodyText()).isEqualTo(400);
      assertThat(malformed.bodyText()).contains("<Code>MalformedACLError</Code>");
    }
    Grant someone = Grant.builder().permission(Permission.READ)
        .grantee(g -> g.type(Type.CANONICAL_USER).id("someone-else")).build();
    assertS3Error(() -> s3.putObjectAcl(b -> b.bucket(bucket).key("k").accessControlPolicy(p -> p
        .owner(o -> o.id("granary")).grants(owner, allUsersRead, someone))), 501, "NotImplemented");
    assertThat(objectPublic(bucket, "k")).isFalse();
    assertThat(bucketPublic(bucket)).isFalse();
  }

  @Test
  @Order(2)
  void objectAcl_movesWithTheObject_toANewTarget() throws Exception {
    String bucket = "acl-moving";
    s3.createBucket(b -> b.bucket(bucket));
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      String key = "k" + i;
      keys.add(key);
      s3.putObject(b -> b.bucket(bucket).key(key).acl(key.hashCode() % 2 == 0 ? ObjectCannedACL.PUBLIC_READ
          : ObjectCannedACL.PRIVATE), RequestBody.fromString(key));
    }
    ClusterMap before = cluster.map();
    String added = cluster.local().addTarget(List.of());
    await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(200)).until(() -> {
      Rebalance r = cluster.map().rebalance();
      return r != null && (before.rebalance() == null || r.id() > before.rebalance().id())
          && r.state() == Rebalance.State.FINISHED;
    });
    List<String> moved = new ArrayList<>();
    for (String key : keys) {
      if (cluster.owner(bucket, key).id().equals(added)) {
        moved.add(key);
      }
    }
    assertThat(moved).as("keys the new target owns").isNotEmpty();
    for (String key : moved) {
      boolean open = key.hashCode() % 2 == 0;
      assertThat(objectPublic(bucket, key)).as(key).isEqualTo(open);
      Http.Reply r = unsigned("GET", "/" + bucket + "/" + key, null);
      if (open) {
        assertThat(r.status()).as(key).isEqualTo(200);
        assertThat(r.bodyText()).isEqualTo(key);
      } else {
        assertDenied(r, key);
      }
    }
  }
}
