package io.granary.common.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.granary.common.error.ApiException;
import io.granary.common.error.BucketNotFoundException;
import io.granary.common.error.ObjectNotFoundException;
import io.granary.common.error.ServiceUnavailableException;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketLocationConstraint;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.CompletedMultipartUpload;
import software.amazon.awssdk.services.s3.model.CopyObjectResponse;
import software.amazon.awssdk.services.s3.model.DeleteObjectsResponse;
import software.amazon.awssdk.services.s3.model.EncodingType;
import software.amazon.awssdk.services.s3.model.ListBucketsResponse;
import software.amazon.awssdk.services.s3.model.ListMultipartUploadsResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.ListPartsResponse;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.s3.model.UploadPartCopyResponse;

/**
 * aws-sdk-java-v2's own unmarshallers read what this package writes, and this package's parsers read what the SDK
 * sends: a real S3Client against a loopback server answering with our XML.
 */
class S3SdkCompatibilityTest {
  private static final Instant T = Instant.parse("2026-11-21T14:00:00.123Z");
  /** Everything XML 1.0 can carry that needs escaping, plus non-ASCII. */
  private static final String HOSTILE = "dir/a&b<c>\"d'e \t\u00e9\u65e5\ud83d\ude00+%.txt";
  /** What only encoding-type=url can carry: control characters, CR, and characters URL encoding must escape. */
  private static final String CONTROL = "dir/ctl\u0001\u001f\r\nx y+z%20&.txt";
  private static final Owner OWNER = new Owner("owner-id", "owner");

  private static FakeS3Endpoint endpoint;
  private static S3Client s3;

  @BeforeAll
  static void start() throws IOException {
    endpoint = new FakeS3Endpoint();
    s3 = S3Client.builder()
        .endpointOverride(endpoint.uri())
        .region(Region.US_EAST_1)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIDEXAMPLE", "secret")))
        .forcePathStyle(true)
        .httpClient(UrlConnectionHttpClient.create())
        .overrideConfiguration(c -> c.retryStrategy(AwsRetryStrategy.doNotRetry()))
        .build();
  }

  @AfterAll
  static void stop() {
    s3.close();
    endpoint.close();
  }

  private static void answer(S3XmlDocument doc) {
    endpoint.respond(FakeS3Endpoint.Canned.xml(doc));
  }

  private static void answerError(ApiException e, String resource, boolean head) {
    endpoint.respond(FakeS3Endpoint.Canned.of(
        S3ErrorRenderer.render(e, resource, "req-err", "p1", head, UnpooledByteBufAllocator.DEFAULT)));
  }

  // ------------------------------------------------------------------ listings

  @Test
  void listObjectsV2_hostileKeys() {
    answer(new ListBucketResultV2("bucket", "dir/", "/", 2, "tok-in", null, false, null, new ObjectListing(
        List.of(new ListedObject("dir/a.txt", T, "9b2cf535f27731c974343645a3985328", 434234),
            new ListedObject(HOSTILE, T, "e2-3", 0)),
        List.of("dir/sub/"), true, "tok-out")));

    ListObjectsV2Response r = s3.listObjectsV2(b -> b.bucket("bucket").prefix("dir/").delimiter("/").maxKeys(2)
        .continuationToken("tok-in"));

    assertThat(endpoint.lastRequest().query()).contains("list-type=2");
    assertThat(r.name()).isEqualTo("bucket");
    assertThat(r.prefix()).isEqualTo("dir/");
    assertThat(r.delimiter()).isEqualTo("/");
    assertThat(r.maxKeys()).isEqualTo(2);
    assertThat(r.keyCount()).isEqualTo(3);
    assertThat(r.isTruncated()).isTrue();
    assertThat(r.continuationToken()).isEqualTo("tok-in");
    assertThat(r.nextContinuationToken()).isEqualTo("tok-out");
    assertThat(r.contents()).extracting(S3Object::key).containsExactly("dir/a.txt", HOSTILE);
    S3Object first = r.contents().get(0);
    assertThat(first.eTag()).isEqualTo("\"9b2cf535f27731c974343645a3985328\"");
    assertThat(first.size()).isEqualTo(434234L);
    assertThat(first.lastModified()).isEqualTo(T);
    assertThat(first.storageClassAsString()).isEqualTo("STANDARD");
    assertThat(r.commonPrefixes()).extracting(CommonPrefix::prefix).containsExactly("dir/sub/");
  }

  @Test
  void listObjectsV2_urlEncoding_carriesControlCharacters() {
    answer(new ListBucketResultV2("bucket", "dir/ctl\u0001", "\u0001", 1000, null, "dir/\r", true, null,
        new ObjectListing(List.of(new ListedObject(CONTROL, T, "e", 1), new ListedObject(HOSTILE, T, "e", 1)),
            List.of("dir/ctl\u0001 +\u0001"), false, null)));

    ListObjectsV2Response r = s3.listObjectsV2(b -> b.bucket("bucket").encodingType(EncodingType.URL));

    assertThat(endpoint.lastRequest().query()).contains("encoding-type=url");
    assertThat(r.encodingType()).isEqualTo(EncodingType.URL);
    assertThat(r.contents()).extracting(S3Object::key).containsExactly(CONTROL, HOSTILE);
    assertThat(r.commonPrefixes()).extracting(CommonPrefix::prefix).containsExactly("dir/ctl\u0001 +\u0001");
    assertThat(r.prefix()).isEqualTo("dir/ctl\u0001");
    assertThat(r.delimiter()).isEqualTo("\u0001");
    assertThat(r.startAfter()).isEqualTo("dir/\r");
  }

  @Test
  void listObjectsV2_controlCharacterWithoutUrlEncoding_failsInTheSdk_asItDoesAgainstS3() {
    answer(new ListBucketResultV2("bucket", null, null, 1000, null, null, false, null,
        new ObjectListing(List.of(new ListedObject(CONTROL, T, "e", 1)), List.of(), false, null)));

    // S3 sends &#x1; too; the cure is encoding-type=url (above), which boto3 and the AWS CLI always use.
    assertThatThrownBy(() -> s3.listObjectsV2(b -> b.bucket("bucket"))).isInstanceOf(SdkClientException.class);
  }

  @Test
  void listObjectsV1_nextMarker() {
    answer(new ListBucketResultV1("bucket", "p q/", "m&1", "/", 1, true, OWNER, new ObjectListing(
        List.of(new ListedObject(CONTROL, T, "e", 5)), List.of("p q/r+s/"), true, "p q/r+s/")));

    ListObjectsResponse r = s3.listObjects(b -> b.bucket("bucket").prefix("p q/").marker("m&1").delimiter("/")
        .maxKeys(1).encodingType(EncodingType.URL));

    assertThat(r.prefix()).isEqualTo("p q/");
    assertThat(r.marker()).isEqualTo("m&1");
    assertThat(r.nextMarker()).isEqualTo("p q/r+s/");
    assertThat(r.isTruncated()).isTrue();
    assertThat(r.contents()).extracting(S3Object::key).containsExactly(CONTROL);
    assertThat(r.contents().get(0).owner().id()).isEqualTo("owner-id");
    assertThat(r.commonPrefixes()).extracting(CommonPrefix::prefix).containsExactly("p q/r+s/");
  }

  @Test
  void listBuckets() {
    answer(new ListAllMyBucketsResult(new Owner("owner-id", "granary"), List.of(
        new ListedBucket("alpha", T), new ListedBucket("beta", Instant.parse("2026-01-01T00:00:00Z")))));

    ListBucketsResponse r = s3.listBuckets();

    assertThat(r.owner().id()).isEqualTo("owner-id");
    assertThat(r.owner().displayName()).isEqualTo("granary");
    assertThat(r.buckets()).extracting(b -> b.name()).containsExactly("alpha", "beta");
    assertThat(r.buckets().get(0).creationDate()).isEqualTo(T);
  }

  // ------------------------------------------------------------------ multipart

  @Test
  void createMultipartUpload() {
    answer(new InitiateMultipartUploadResult("bucket", HOSTILE, "upload-1"));

    String uploadId = s3.createMultipartUpload(b -> b.bucket("bucket").key(HOSTILE)).uploadId();

    assertThat(uploadId).isEqualTo("upload-1");
    assertThat(endpoint.lastRequest().method()).isEqualTo("POST");
    assertThat(endpoint.lastRequest().query()).contains("uploads");
  }

  @Test
  void completeMultipartUpload_ourParserReadsTheSdkBody_andTheSdkReadsOurAnswer() {
    answer(new CompleteMultipartUploadResult("http://h/bucket/k", "bucket", HOSTILE, "abc-2"));

    CompleteMultipartUploadResponse r = s3.completeMultipartUpload(b -> b.bucket("bucket").key(HOSTILE)
        .uploadId("upload-1")
        .multipartUpload(CompletedMultipartUpload.builder().parts(
            sdkPart(1, "\"e1\"").toBuilder().checksumCRC32("AAAAAA==").build(), sdkPart(2, "e2")).build()));

    CompleteMultipartUpload sent = CompleteMultipartUpload.parse(endpoint.lastRequest().body());
    assertThat(sent.parts()).containsExactly(new CompletedPart(1, "\"e1\""), new CompletedPart(2, "e2"));
    assertThat(sent.parts()).extracting(CompletedPart::normalizedEtag).containsExactly("e1", "e2");
    assertThat(r.location()).isEqualTo("http://h/bucket/k");
    assertThat(r.bucket()).isEqualTo("bucket");
    assertThat(r.key()).isEqualTo(HOSTILE);
    assertThat(r.eTag()).isEqualTo("\"abc-2\"");
  }

  @Test
  void listParts() {
    answer(new ListPartsResult("bucket", "k", "upload-1", 0, 2, true, List.of(
        new ListedPart(1, T, "e1", 5 << 20), new ListedPart(2, T, "e2", 5 << 20)), OWNER));

    ListPartsResponse r = s3.listParts(b -> b.bucket("bucket").key("k").uploadId("upload-1").maxParts(2));

    assertThat(r.uploadId()).isEqualTo("upload-1");
    assertThat(r.isTruncated()).isTrue();
    assertThat(r.nextPartNumberMarker()).isEqualTo(2);
    assertThat(r.maxParts()).isEqualTo(2);
    assertThat(r.initiator().id()).isEqualTo("owner-id");
    assertThat(r.parts()).hasSize(2);
    assertThat(r.parts().get(1).partNumber()).isEqualTo(2);
    assertThat(r.parts().get(1).eTag()).isEqualTo("\"e2\"");
    assertThat(r.parts().get(1).size()).isEqualTo(5L << 20);
    assertThat(r.parts().get(1).lastModified()).isEqualTo(T);
  }

  @Test
  void listMultipartUploads_urlEncoded() {
    answer(new ListMultipartUploadsResult("bucket", "dir/", "/", null, null, 1, true, OWNER,
        new MultipartUploadListing(List.of(new ListedUpload(CONTROL, "u1", T)), List.of("dir/x y/"), true, CONTROL, "u1")));

    ListMultipartUploadsResponse r = s3.listMultipartUploads(b -> b.bucket("bucket").prefix("dir/").delimiter("/")
        .maxUploads(1).encodingType(EncodingType.URL));

    assertThat(r.bucket()).isEqualTo("bucket");
    assertThat(r.isTruncated()).isTrue();
    assertThat(r.nextKeyMarker()).isEqualTo(CONTROL);
    assertThat(r.nextUploadIdMarker()).isEqualTo("u1");
    assertThat(r.maxUploads()).isEqualTo(1);
    assertThat(r.uploads()).hasSize(1);
    assertThat(r.uploads().get(0).key()).isEqualTo(CONTROL);
    assertThat(r.uploads().get(0).uploadId()).isEqualTo("u1");
    assertThat(r.uploads().get(0).initiated()).isEqualTo(T);
    assertThat(r.commonPrefixes()).extracting(CommonPrefix::prefix).containsExactly("dir/x y/");
  }

  @Test
  void uploadPartCopy() {
    answer(new CopyPartResult(T, "e3"));

    UploadPartCopyResponse r = s3.uploadPartCopy(b -> b.sourceBucket("src").sourceKey("a").destinationBucket("bucket")
        .destinationKey("k").uploadId("u1").partNumber(3));

    assertThat(r.copyPartResult().eTag()).isEqualTo("\"e3\"");
    assertThat(r.copyPartResult().lastModified()).isEqualTo(T);
  }

  // ------------------------------------------------------------------ objects and buckets

  @Test
  void deleteObjects_ourParserReadsTheSdkBody_andTheSdkReadsOurAnswer() {
    answer(new DeleteResult(false, List.of(ObjectIdentifier.of(HOSTILE), new ObjectIdentifier("v", "ver-1")),
        List.of(DeleteError.of(ObjectIdentifier.of("busy"),
            new ServiceUnavailableException(ServiceUnavailableException.BUSY, "try later", 1)))));

    DeleteObjectsResponse r = s3.deleteObjects(b -> b.bucket("bucket").delete(d -> d.quiet(false).objects(
        sdkId(HOSTILE, null), sdkId("v", "ver-1"), sdkId("busy", null))));

    DeleteRequest sent = DeleteRequest.parse(endpoint.lastRequest().body());
    assertThat(sent.quiet()).isFalse();
    assertThat(sent.objects()).containsExactly(ObjectIdentifier.of(HOSTILE),
        new ObjectIdentifier("v", "ver-1"), ObjectIdentifier.of("busy"));
    assertThat(r.deleted()).extracting(d -> d.key()).containsExactly(HOSTILE, "v");
    assertThat(r.deleted().get(1).versionId()).isEqualTo("ver-1");
    assertThat(r.errors()).hasSize(1);
    assertThat(r.errors().get(0).key()).isEqualTo("busy");
    assertThat(r.errors().get(0).code()).isEqualTo("SlowDown");
    assertThat(r.errors().get(0).message()).isEqualTo("try later");
  }

  @Test
  void deleteObjects_quiet() {
    answer(new DeleteResult(true, List.of(ObjectIdentifier.of("a")), List.of()));

    DeleteObjectsResponse r = s3.deleteObjects(b -> b.bucket("bucket").delete(d -> d.quiet(true).objects(
        sdkId("a", null))));

    assertThat(DeleteRequest.parse(endpoint.lastRequest().body()).quiet()).isTrue();
    assertThat(r.deleted()).isEmpty();
    assertThat(r.errors()).isEmpty();
  }

  @Test
  void copyObject() {
    answer(new CopyObjectResult(T, "9b2cf535f27731c974343645a3985328"));

    CopyObjectResponse r = s3.copyObject(b -> b.sourceBucket("src").sourceKey("a").destinationBucket("bucket")
        .destinationKey("b"));

    assertThat(r.copyObjectResult().eTag()).isEqualTo("\"9b2cf535f27731c974343645a3985328\"");
    assertThat(r.copyObjectResult().lastModified()).isEqualTo(T);
  }

  @Test
  void createBucket_withLocation_ourParserReadsTheSdkBody() {
    endpoint.respond(new FakeS3Endpoint.Canned(200, Map.of("Location", "/bucket"), new byte[0]));

    s3.createBucket(b -> b.bucket("bucket")
        .createBucketConfiguration(c -> c.locationConstraint(BucketLocationConstraint.EU_WEST_1)));

    assertThat(CreateBucketConfiguration.parse(endpoint.lastRequest().body()).location()).contains("eu-west-1");
  }

  @Test
  void getBucketLocation() {
    answer(new LocationConstraint("eu-west-1"));
    assertThat(s3.getBucketLocation(b -> b.bucket("bucket")).locationConstraintAsString()).isEqualTo("eu-west-1");

    answer(new LocationConstraint(null));
    assertThat(s3.getBucketLocation(b -> b.bucket("bucket")).locationConstraintAsString()).isEmpty();
  }

  // ------------------------------------------------------------------ errors

  @Test
  void error_noSuchBucket() {
    answerError(new BucketNotFoundException("nope"), "/nope", false);

    assertThatThrownBy(() -> s3.listObjectsV2(b -> b.bucket("nope")))
        .isInstanceOfSatisfying(NoSuchBucketException.class, e -> {
          assertThat(e.statusCode()).isEqualTo(404);
          assertThat(e.awsErrorDetails().errorCode()).isEqualTo("NoSuchBucket");
          assertThat(e.awsErrorDetails().errorMessage()).isEqualTo("bucket 'nope' does not exist");
          assertThat(e.requestId()).isEqualTo("req-err");
          assertThat(e.extendedRequestId()).isEqualTo("p1");
        });
  }

  @Test
  void error_noSuchKey_onGet() {
    answerError(new ObjectNotFoundException("bucket", "k"), "/bucket/k", false);

    assertThatThrownBy(() -> s3.getObjectAsBytes(b -> b.bucket("bucket").key("k")))
        .isInstanceOfSatisfying(NoSuchKeyException.class, e -> {
          assertThat(e.awsErrorDetails().errorCode()).isEqualTo("NoSuchKey");
          assertThat(e.statusCode()).isEqualTo(404);
        });
  }

  @Test
  void error_onHead_hasNoBody_butStatusAndRequestId() {
    answerError(new ObjectNotFoundException("bucket", "k"), "/bucket/k", true);

    assertThatThrownBy(() -> s3.headObject(b -> b.bucket("bucket").key("k")))
        .isInstanceOfSatisfying(S3Exception.class, e -> {
          assertThat(e.statusCode()).isEqualTo(404);
          assertThat(e.requestId()).isEqualTo("req-err");
        });
  }

  @Test
  void error_slowDown() {
    answerError(new ServiceUnavailableException(ServiceUnavailableException.BUSY, "too busy", 1), "/bucket/k", false);

    assertThatThrownBy(() -> s3.getObjectAsBytes(b -> b.bucket("bucket").key("k")))
        .isInstanceOfSatisfying(S3Exception.class, e -> {
          assertThat(e.statusCode()).isEqualTo(503);
          assertThat(e.awsErrorDetails().errorCode()).isEqualTo("SlowDown");
          assertThat(e.isThrottlingException()).isTrue();
        });
  }

  @Test
  void error_invalidArgument_withDetails() {
    answerError(S3ApiException.invalidArgument("bad encoding", "encoding-type", "zip"), "/bucket", false);

    assertThatThrownBy(() -> s3.listObjectsV2(b -> b.bucket("bucket")))
        .isInstanceOfSatisfying(S3Exception.class, e -> {
          assertThat(e.statusCode()).isEqualTo(400);
          assertThat(e.awsErrorDetails().errorCode()).isEqualTo("InvalidArgument");
          assertThat(e.awsErrorDetails().errorMessage()).isEqualTo("bad encoding");
        });
  }

  private static software.amazon.awssdk.services.s3.model.CompletedPart sdkPart(int number, String etag) {
    return software.amazon.awssdk.services.s3.model.CompletedPart.builder().partNumber(number).eTag(etag).build();
  }

  private static software.amazon.awssdk.services.s3.model.ObjectIdentifier sdkId(String key, String versionId) {
    return software.amazon.awssdk.services.s3.model.ObjectIdentifier.builder().key(key).versionId(versionId).build();
  }
}
