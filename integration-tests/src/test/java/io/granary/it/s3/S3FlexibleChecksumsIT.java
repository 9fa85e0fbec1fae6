package io.granary.it.s3;

import static io.granary.it.s3.S3Support.assertS3Error;
import static org.assertj.core.api.Assertions.assertThat;

import io.granary.it.support.Content;
import io.granary.it.support.Http;
import io.granary.it.support.Resources;
import io.granary.it.support.TestCluster;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;
import java.util.zip.Checksum;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ChecksumAlgorithm;
import software.amazon.awssdk.services.s3.model.ChecksumMode;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;
import software.amazon.awssdk.services.s3.model.ChecksumType;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.CopyObjectResponse;
import software.amazon.awssdk.services.s3.model.GetObjectAttributesResponse;
import software.amazon.awssdk.services.s3.model.ObjectAttributes;
import software.amazon.awssdk.services.s3.model.ObjectPart;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

/**
 * S3's flexible checksums ({@code x-amz-checksum-crc32|crc32c|crc64nvme|sha1|sha256}) sent as request headers with
 * the AWS SDK: a PUT whose body does not match is 400 BadDigest and stores nothing, and a whole-object GET or HEAD
 * in checksum mode answers the checksum the PUT gave (header or the SDK's default trailer), kept with the object, or
 * else the object's checksum (as {@code FULL_OBJECT}) when its bucket keeps one of these types. GetObjectAttributes
 * answers the same checksum, the ETag, size, storage class and the pages of a multipart object's parts.
 * Expected values are computed here, independently of Granary's hashers.
 */
class S3FlexibleChecksumsIT {
  private static TestCluster cluster;
  private static S3Client s3;
  private static final Set<String> created = new HashSet<>();

  @BeforeAll
  static void start() throws Exception {
    cluster = TestCluster.start("s3flexsums", 1);
    s3 = S3Support.sync(cluster);
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(s3, cluster);
  }

  /** A bucket that keeps {@code type} as its objects' checksum, created through the native API. */
  private static String bucket(String type) throws Exception {
    String name = "flex-" + type;
    if (created.add(name)) {
      Http.Reply reply = cluster.createBucket(name, "{\"checksum\":\"" + type + "\"}");
      assertThat(reply.status()).as(reply.bodyText()).isEqualTo(201);
    }
    return name;
  }

  @ParameterizedTest
  @ValueSource(strings = {"crc32", "crc32c", "crc64nvme", "sha1", "sha256"})
  void checksumHeaderOnPut_isVerified_andAnsweredInChecksumMode_forWholeObjectsOnly(String type) throws Exception {
    String bucket = bucket(type);
    byte[] data = Content.bytes(type.hashCode(), 333_333);
    String sum = base64Of(type, data);

    s3.putObject(with(type, PutObjectRequest.builder().bucket(bucket).key("obj"), sum).build(),
        RequestBody.fromBytes(data));
    assertThat(S3Support.sentHeader("PutObject", "x-amz-checksum-" + type)).as("sent as a header").isEqualTo(sum);

    ResponseBytes<GetObjectResponse> got = s3.getObjectAsBytes(b -> b.bucket(bucket).key("obj")
        .checksumMode(ChecksumMode.ENABLED));
    assertThat(got.asByteArray()).isEqualTo(data);
    assertThat(answered(got.response().checksumCRC32(), got.response().checksumCRC32C(),
        got.response().checksumCRC64NVME(), got.response().checksumSHA1(), got.response().checksumSHA256()))
        .isEqualTo(Map.of(type, sum));
    assertThat(got.response().checksumType()).isEqualTo(ChecksumType.FULL_OBJECT);

    HeadObjectResponse head = s3.headObject(b -> b.bucket(bucket).key("obj").checksumMode(ChecksumMode.ENABLED));
    assertThat(answered(head.checksumCRC32(), head.checksumCRC32C(), head.checksumCRC64NVME(),
        head.checksumSHA1(), head.checksumSHA256())).isEqualTo(Map.of(type, sum));

    // S3 answers no checksum for a range, nor without checksum mode.
    GetObjectResponse ranged = s3.getObjectAsBytes(b -> b.bucket(bucket).key("obj").range("bytes=10-99")
        .checksumMode(ChecksumMode.ENABLED)).response();
    assertThat(answered(ranged.checksumCRC32(), ranged.checksumCRC32C(), ranged.checksumCRC64NVME(),
        ranged.checksumSHA1(), ranged.checksumSHA256())).isEmpty();
    GetObjectResponse plain = s3.getObjectAsBytes(b -> b.bucket(bucket).key("obj")).response();
    assertThat(answered(plain.checksumCRC32(), plain.checksumCRC32C(), plain.checksumCRC64NVME(),
        plain.checksumSHA1(), plain.checksumSHA256())).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"crc32", "crc32c", "crc64nvme", "sha1", "sha256"})
  void wrongChecksumHeaderOnPut_is400BadDigest_andKeepsTheStoredVersion(String type) throws Exception {
    String bucket = bucket("md5"); // the header is checked whatever the bucket keeps
    byte[] kept = Content.bytes(11, 1000);
    s3.putObject(b -> b.bucket(bucket).key("keep-" + type), RequestBody.fromBytes(kept));
    byte[] data = Content.bytes(12, 70_000);
    byte[] other = data.clone();
    other[69_999] ^= 1; // the checksum of a body one bit away
    String wrong = base64Of(type, other);

    assertS3Error(() -> s3.putObject(with(type, PutObjectRequest.builder().bucket(bucket).key("keep-" + type), wrong)
        .build(), RequestBody.fromBytes(data)), 400, "BadDigest");
    assertS3Error(() -> s3.putObject(with(type, PutObjectRequest.builder().bucket(bucket).key("new-" + type), wrong)
        .build(), RequestBody.fromBytes(data)), 400, "BadDigest");
    assertThat(s3.getObjectAsBytes(b -> b.bucket(bucket).key("keep-" + type)).asByteArray()).isEqualTo(kept);
    assertS3Error(() -> s3.headObject(b -> b.bucket(bucket).key("new-" + type)), 404, null);
  }

  @Test
  void uploadPart_withAWrongCrc64NvmeHeader_isBadDigest_andTheRightOneCompletes() throws Exception {
    String bucket = bucket("md5");
    byte[] data = Content.bytes(15, 100_000);
    byte[] other = data.clone();
    other[0] ^= 1;
    String wrong = base64Of("crc64nvme", other);
    String right = base64Of("crc64nvme", data);
    String upload = s3.createMultipartUpload(b -> b.bucket(bucket).key("mpu")).uploadId();
    assertS3Error(() -> s3.uploadPart(b -> b.bucket(bucket).key("mpu").uploadId(upload).partNumber(1)
        .checksumCRC64NVME(wrong), RequestBody.fromBytes(data)), 400, "BadDigest");
    assertThat(s3.listParts(b -> b.bucket(bucket).key("mpu").uploadId(upload)).parts()).isEmpty();

    String etag = s3.uploadPart(b -> b.bucket(bucket).key("mpu").uploadId(upload).partNumber(1)
        .checksumCRC64NVME(right), RequestBody.fromBytes(data)).eTag();
    s3.completeMultipartUpload(b -> b.bucket(bucket).key("mpu").uploadId(upload)
        .multipartUpload(m -> m.parts(p -> p.partNumber(1).eTag(etag))));
    assertThat(s3.getObjectAsBytes(b -> b.bucket(bucket).key("mpu")).asByteArray()).isEqualTo(data);
  }

  @Test
  void checksumHeaderOfTheWrongWidth_is400InvalidRequest() throws Exception {
    String bucket = bucket("md5");
    byte[] data = Content.bytes(13, 1000);
    String fourBytes = Base64.getEncoder().encodeToString(new byte[4]);
    assertS3Error(() -> s3.putObject(b -> b.bucket(bucket).key("wide").checksumCRC64NVME(fourBytes),
        RequestBody.fromBytes(data)), 400, "InvalidRequest");
    assertS3Error(() -> s3.putObject(b -> b.bucket(bucket).key("wide").checksumCRC32("not base64!"),
        RequestBody.fromBytes(data)), 400, "InvalidRequest");
    assertS3Error(() -> s3.headObject(b -> b.bucket(bucket).key("wide")), 404, null);
  }

  @Test
  void bucketKeepingMd5_answersNoFlexibleChecksum_inChecksumMode_whenThePutGaveNone() throws Exception {
    String bucket = bucket("md5");
    byte[] data = Content.bytes(14, 5000);
    Http.Reply put = S3Support.sendSigned(cluster, "PUT", "/" + bucket + "/md5-only", Map.of(), data, data);
    assertThat(put.status()).as(put.bodyText()).isEqualTo(200);
    HeadObjectResponse head = s3.headObject(b -> b.bucket(bucket).key("md5-only").checksumMode(ChecksumMode.ENABLED));
    assertThat(answered(head.checksumCRC32(), head.checksumCRC32C(), head.checksumCRC64NVME(),
        head.checksumSHA1(), head.checksumSHA256())).isEmpty();
    assertThat(head.checksumType()).isNull();
    GetObjectAttributesResponse attrs = s3.getObjectAttributes(b -> b.bucket(bucket).key("md5-only")
        .objectAttributes(ObjectAttributes.CHECKSUM, ObjectAttributes.OBJECT_SIZE));
    assertThat(attrs.checksum()).isNull();
    assertThat(attrs.objectSize()).isEqualTo(5000L);
  }

  @ParameterizedTest
  @ValueSource(strings = {"crc32", "crc32c", "crc64nvme", "sha1", "sha256"})
  void checksumGivenOnPut_isEchoed_kept_andAnsweredInChecksumMode_whateverTheBucketKeeps(String type)
      throws Exception {
    String bucket = bucket("md5");
    String key = "kept-" + type;
    byte[] data = Content.bytes(type.hashCode() + 1, 200_001);
    String sum = base64Of(type, data);

    PutObjectResponse put = s3.putObject(with(type, PutObjectRequest.builder().bucket(bucket).key(key), sum).build(),
        RequestBody.fromBytes(data));
    assertThat(answered(put.checksumCRC32(), put.checksumCRC32C(), put.checksumCRC64NVME(), put.checksumSHA1(),
        put.checksumSHA256())).as("echoed by the PUT").isEqualTo(Map.of(type, sum));

    HeadObjectResponse head = s3.headObject(b -> b.bucket(bucket).key(key).checksumMode(ChecksumMode.ENABLED));
    assertThat(answered(head.checksumCRC32(), head.checksumCRC32C(), head.checksumCRC64NVME(),
        head.checksumSHA1(), head.checksumSHA256())).isEqualTo(Map.of(type, sum));
    assertThat(head.checksumType()).isEqualTo(ChecksumType.FULL_OBJECT);
    ResponseBytes<GetObjectResponse> got = s3.getObjectAsBytes(b -> b.bucket(bucket).key(key)
        .checksumMode(ChecksumMode.ENABLED));
    assertThat(got.asByteArray()).isEqualTo(data);
    assertThat(answered(got.response().checksumCRC32(), got.response().checksumCRC32C(),
        got.response().checksumCRC64NVME(), got.response().checksumSHA1(), got.response().checksumSHA256()))
        .isEqualTo(Map.of(type, sum));
    GetObjectResponse ranged = s3.getObjectAsBytes(b -> b.bucket(bucket).key(key).range("bytes=0-9")
        .checksumMode(ChecksumMode.ENABLED)).response();
    assertThat(answered(ranged.checksumCRC32(), ranged.checksumCRC32C(), ranged.checksumCRC64NVME(),
        ranged.checksumSHA1(), ranged.checksumSHA256())).as("none for a range").isEmpty();

    GetObjectAttributesResponse attrs = s3.getObjectAttributes(b -> b.bucket(bucket).key(key)
        .objectAttributes(ObjectAttributes.CHECKSUM));
    assertThat(answered(attrs.checksum().checksumCRC32(), attrs.checksum().checksumCRC32C(),
        attrs.checksum().checksumCRC64NVME(), attrs.checksum().checksumSHA1(), attrs.checksum().checksumSHA256()))
        .isEqualTo(Map.of(type, sum));
    assertThat(attrs.checksum().checksumType()).isEqualTo(ChecksumType.FULL_OBJECT);
    assertThat(attrs.eTag()).as("not asked for").isNull();
  }

  @Test
  void defaultSdkPut_withACrc32Trailer_keepsAndEchoesTheTrailersValue() throws Exception {
    String bucket = bucket("md5");
    byte[] data = Content.bytes(16, 300_000);
    PutObjectResponse put = s3.putObject(b -> b.bucket(bucket).key("trailer"), RequestBody.fromBytes(data));
    assertThat(S3Support.sentHeader("PutObject", "x-amz-trailer")).as("the SDK sent a trailer")
        .isEqualTo("x-amz-checksum-crc32");
    String sum = base64Of("crc32", data);
    assertThat(put.checksumCRC32()).isEqualTo(sum);
    HeadObjectResponse head = s3.headObject(b -> b.bucket(bucket).key("trailer").checksumMode(ChecksumMode.ENABLED));
    assertThat(head.checksumCRC32()).isEqualTo(sum);
    assertThat(head.checksumCRC32C()).isNull();
  }

  @Test
  void getObjectAttributes_ofASinglePutObject_answersEveryAttributeButParts() throws Exception {
    String bucket = bucket("md5");
    byte[] data = Content.bytes(17, 12_345);
    String crc32c = base64Of("crc32c", data);
    String etag = s3.putObject(b -> b.bucket(bucket).key("attrs-single").checksumCRC32C(crc32c),
        RequestBody.fromBytes(data)).eTag();
    GetObjectAttributesResponse attrs = s3.getObjectAttributes(b -> b.bucket(bucket).key("attrs-single")
        .objectAttributes(ObjectAttributes.E_TAG, ObjectAttributes.CHECKSUM, ObjectAttributes.OBJECT_PARTS,
            ObjectAttributes.STORAGE_CLASS, ObjectAttributes.OBJECT_SIZE));
    assertThat(attrs.eTag()).isEqualTo(S3Support.unquote(etag)).isEqualTo(S3Support.md5Hex(data));
    assertThat(attrs.checksum().checksumCRC32C()).isEqualTo(crc32c);
    assertThat(attrs.objectParts()).as("no parts for a single PUT").isNull();
    assertThat(attrs.storageClassAsString()).isEqualTo("STANDARD");
    assertThat(attrs.objectSize()).isEqualTo(12_345L);
    assertThat(attrs.lastModified()).isNotNull();
  }

  @Test
  void getObjectAttributes_ofAMultipartObject_pagesItsParts() throws Exception {
    String bucket = bucket("md5");
    long part = 5L << 20;
    byte[][] parts = {Content.bytes(21, (int) part), Content.bytes(22, (int) part), Content.bytes(23, 1234)};
    String upload = s3.createMultipartUpload(b -> b.bucket(bucket).key("attrs-mpu")).uploadId();
    java.util.List<CompletedPart> done = new java.util.ArrayList<>();
    for (int i = 0; i < parts.length; i++) {
      int n = i + 1;
      String etag = s3.uploadPart(b -> b.bucket(bucket).key("attrs-mpu").uploadId(upload).partNumber(n),
          RequestBody.fromBytes(parts[n - 1])).eTag();
      done.add(CompletedPart.builder().partNumber(n).eTag(etag).build());
    }
    String etag = s3.completeMultipartUpload(b -> b.bucket(bucket).key("attrs-mpu").uploadId(upload)
        .multipartUpload(m -> m.parts(done))).eTag();

    GetObjectAttributesResponse first = s3.getObjectAttributes(b -> b.bucket(bucket).key("attrs-mpu")
        .objectAttributes(ObjectAttributes.OBJECT_PARTS, ObjectAttributes.E_TAG, ObjectAttributes.OBJECT_SIZE)
        .maxParts(2));
    assertThat(first.eTag()).isEqualTo(S3Support.unquote(etag)).endsWith("-3");
    assertThat(first.objectSize()).isEqualTo(2 * part + 1234);
    assertThat(first.objectParts().totalPartsCount()).isEqualTo(3);
    assertThat(first.objectParts().maxParts()).isEqualTo(2);
    assertThat(first.objectParts().isTruncated()).isTrue();
    assertThat(first.objectParts().parts()).extracting(ObjectPart::partNumber).containsExactly(1, 2);
    assertThat(first.objectParts().parts()).extracting(ObjectPart::size).containsExactly(part, part);
    assertThat(first.objectParts().nextPartNumberMarker()).isEqualTo(2);

    GetObjectAttributesResponse rest = s3.getObjectAttributes(b -> b.bucket(bucket).key("attrs-mpu")
        .objectAttributes(ObjectAttributes.OBJECT_PARTS).maxParts(2)
        .partNumberMarker(first.objectParts().nextPartNumberMarker()));
    assertThat(rest.objectParts().isTruncated()).isFalse();
    assertThat(rest.objectParts().partNumberMarker()).isEqualTo(2);
    assertThat(rest.objectParts().parts()).extracting(ObjectPart::partNumber).containsExactly(3);
    assertThat(rest.objectParts().parts()).extracting(ObjectPart::size).containsExactly(1234L);
  }

  @Test
  void getObjectAttributes_withAnUnknownAttribute_is400_andOfAMissingKey_is404NoSuchKey() throws Exception {
    String bucket = bucket("md5");
    s3.putObject(b -> b.bucket(bucket).key("attrs-bad"), RequestBody.fromBytes(Content.bytes(18, 10)));
    assertS3Error(() -> s3.getObjectAttributes(b -> b.bucket(bucket).key("attrs-bad")
        .objectAttributesWithStrings("ETag", "Colour")), 400, "InvalidArgument");
    assertS3Error(() -> s3.getObjectAttributes(b -> b.bucket(bucket).key("attrs-bad")
        .objectAttributes(ObjectAttributes.E_TAG).maxParts(-1)), 400, "InvalidArgument");
    assertS3Error(() -> s3.getObjectAttributes(b -> b.bucket(bucket).key("no-such-key")
        .objectAttributes(ObjectAttributes.E_TAG)), 404, "NoSuchKey");
  }

  @Test
  void multipartUpload_withCrc32Composite_keepsPartChecksums_andCompletesWithTheChecksumOfThem() throws Exception {
    String bucket = bucket("md5");
    byte[][] parts = {Content.bytes(31, 5 << 20), Content.bytes(32, 5 << 20), Content.bytes(33, 777)};
    CreateMultipartUploadResponse created = s3.createMultipartUpload(b -> b.bucket(bucket).key("composite")
        .checksumAlgorithm(ChecksumAlgorithm.CRC32));
    assertThat(created.checksumAlgorithm()).isEqualTo(ChecksumAlgorithm.CRC32);
    assertThat(created.checksumType()).isEqualTo(ChecksumType.COMPOSITE);
    java.io.ByteArrayOutputStream partSums = new java.io.ByteArrayOutputStream();
    java.util.List<CompletedPart> done = new java.util.ArrayList<>();
    for (int i = 0; i < parts.length; i++) {
      int n = i + 1;
      UploadPartResponse r = s3.uploadPart(b -> b.bucket(bucket).key("composite").uploadId(created.uploadId())
          .partNumber(n).checksumAlgorithm(ChecksumAlgorithm.CRC32), RequestBody.fromBytes(parts[n - 1]));
      String sum = base64Of("crc32", parts[n - 1]);
      assertThat(r.checksumCRC32()).as("part %d echoed", n).isEqualTo(sum);
      partSums.write(Base64.getDecoder().decode(sum));
      done.add(CompletedPart.builder().partNumber(n).eTag(r.eTag()).checksumCRC32(sum).build());
    }
    CompleteMultipartUploadResponse completed = s3.completeMultipartUpload(b -> b.bucket(bucket).key("composite")
        .uploadId(created.uploadId()).multipartUpload(m -> m.parts(done)));
    String composite = base64Of("crc32", partSums.toByteArray()) + "-3";
    assertThat(completed.checksumCRC32()).isEqualTo(composite);
    assertThat(completed.checksumType()).isEqualTo(ChecksumType.COMPOSITE);

    HeadObjectResponse head = s3.headObject(b -> b.bucket(bucket).key("composite").checksumMode(ChecksumMode.ENABLED));
    assertThat(head.checksumCRC32()).isEqualTo(composite);
    assertThat(head.checksumType()).isEqualTo(ChecksumType.COMPOSITE);
    GetObjectAttributesResponse attrs = s3.getObjectAttributes(b -> b.bucket(bucket).key("composite")
        .objectAttributes(ObjectAttributes.CHECKSUM));
    assertThat(attrs.checksum().checksumCRC32()).isEqualTo(composite);
    assertThat(attrs.checksum().checksumType()).isEqualTo(ChecksumType.COMPOSITE);

    // each part's checksum is kept after the upload is gone: listed with the parts, answered for a part's read
    GetObjectAttributesResponse listed = s3.getObjectAttributes(b -> b.bucket(bucket).key("composite")
        .objectAttributes(ObjectAttributes.OBJECT_PARTS));
    java.util.List<String> kept = new java.util.ArrayList<>(); // base64, as S3 answers each
    for (byte[] part : parts) {
      kept.add(base64Of("crc32", part));
    }
    assertThat(listed.objectParts().parts()).extracting(ObjectPart::checksumCRC32).isEqualTo(kept);
    for (int n = 1; n <= parts.length; n++) {
      int number = n;
      HeadObjectResponse part = s3.headObject(b -> b.bucket(bucket).key("composite").partNumber(number)
          .checksumMode(ChecksumMode.ENABLED));
      assertThat(part.checksumCRC32()).as("part %d", n).isEqualTo(kept.get(n - 1));
      assertThat(part.partsCount()).isEqualTo(3);
    }
    ResponseBytes<GetObjectResponse> second = s3.getObjectAsBytes(b -> b.bucket(bucket).key("composite")
        .partNumber(2).checksumMode(ChecksumMode.ENABLED));
    assertThat(second.response().checksumCRC32()).isEqualTo(kept.get(1));
    assertThat(second.asByteArray()).isEqualTo(parts[1]);
    assertThat(s3.headObject(b -> b.bucket(bucket).key("composite").partNumber(2)).checksumCRC32())
        .as("without checksum mode").isNull();
  }

  @Test
  void multipartUpload_withCrc32cFullObject_completesWithTheCrcOfTheWholeContent() throws Exception {
    String bucket = bucket("xxhash");
    byte[][] parts = {Content.bytes(41, 5 << 20), Content.bytes(42, 4321)};
    CreateMultipartUploadResponse created = s3.createMultipartUpload(b -> b.bucket(bucket).key("full")
        .checksumAlgorithm(ChecksumAlgorithm.CRC32_C).checksumType(ChecksumType.FULL_OBJECT));
    assertThat(created.checksumType()).isEqualTo(ChecksumType.FULL_OBJECT);
    java.util.List<CompletedPart> done = new java.util.ArrayList<>();
    java.io.ByteArrayOutputStream whole = new java.io.ByteArrayOutputStream();
    for (int i = 0; i < parts.length; i++) {
      int n = i + 1;
      String etag = s3.uploadPart(b -> b.bucket(bucket).key("full").uploadId(created.uploadId()).partNumber(n)
          .checksumAlgorithm(ChecksumAlgorithm.CRC32_C), RequestBody.fromBytes(parts[n - 1])).eTag();
      whole.write(parts[n - 1]);
      done.add(CompletedPart.builder().partNumber(n).eTag(etag).build());
    }
    CompleteMultipartUploadResponse completed = s3.completeMultipartUpload(b -> b.bucket(bucket).key("full")
        .uploadId(created.uploadId()).multipartUpload(m -> m.parts(done)));
    String full = base64Of("crc32c", whole.toByteArray());
    assertThat(completed.checksumCRC32C()).isEqualTo(full);
    assertThat(completed.checksumType()).isEqualTo(ChecksumType.FULL_OBJECT);
    HeadObjectResponse head = s3.headObject(b -> b.bucket(bucket).key("full").checksumMode(ChecksumMode.ENABLED));
    assertThat(head.checksumCRC32C()).isEqualTo(full);
    assertThat(head.checksumType()).isEqualTo(ChecksumType.FULL_OBJECT);
    GetObjectAttributesResponse listed = s3.getObjectAttributes(b -> b.bucket(bucket).key("full")
        .objectAttributes(ObjectAttributes.OBJECT_PARTS));
    assertThat(listed.objectParts().parts()).extracting(ObjectPart::checksumCRC32C)
        .containsExactly(base64Of("crc32c", parts[0]), base64Of("crc32c", parts[1]));
  }

  @Test
  void uploadPartCopy_intoAComposite_upload_getsThePartsChecksum() throws Exception {
    String bucket = bucket("md5");
    byte[] data = Content.bytes(61, 90_000);
    s3.putObject(b -> b.bucket(bucket).key("part-src"), RequestBody.fromBytes(data));
    String upload = s3.createMultipartUpload(b -> b.bucket(bucket).key("part-copied")
        .checksumAlgorithm(ChecksumAlgorithm.SHA1)).uploadId();
    String etag = s3.uploadPartCopy(b -> b.sourceBucket(bucket).sourceKey("part-src").destinationBucket(bucket)
        .destinationKey("part-copied").uploadId(upload).partNumber(1)).copyPartResult().eTag();
    CompleteMultipartUploadResponse completed = s3.completeMultipartUpload(b -> b.bucket(bucket).key("part-copied")
        .uploadId(upload).multipartUpload(m -> m.parts(p -> p.partNumber(1).eTag(etag))));
    String composite = base64Of("sha1", Base64.getDecoder().decode(base64Of("sha1", data))) + "-1";
    assertThat(completed.checksumSHA1()).isEqualTo(composite);
  }

  @Test
  void createMultipartUpload_withAnUnknownAlgorithm_orAFullObjectSha_is400InvalidRequest() throws Exception {
    String bucket = bucket("md5");
    assertS3Error(() -> s3.createMultipartUpload(b -> b.bucket(bucket).key("bad-sum")
        .checksumAlgorithm(ChecksumAlgorithm.SHA256).checksumType(ChecksumType.FULL_OBJECT)), 400, "InvalidRequest");
    assertS3Error(() -> s3.createMultipartUpload(b -> b.bucket(bucket).key("bad-sum")
        .checksumAlgorithm("MD4")), 400, "InvalidRequest");
    assertThat(s3.listMultipartUploads(b -> b.bucket(bucket).prefix("bad-sum")).uploads()).isEmpty();
  }

  @Test
  void copyObject_withAChecksumAlgorithm_keepsThatChecksumOfTheCopy() throws Exception {
    String bucket = bucket("md5");
    byte[] data = Content.bytes(51, 70_000);
    s3.putObject(b -> b.bucket(bucket).key("copy-src"), RequestBody.fromBytes(data));
    CopyObjectResponse copied = s3.copyObject(b -> b.sourceBucket(bucket).sourceKey("copy-src")
        .destinationBucket(bucket).destinationKey("copy-dst").checksumAlgorithm(ChecksumAlgorithm.SHA256));
    String sha256 = base64Of("sha256", data);
    assertThat(copied.copyObjectResult().checksumSHA256()).isEqualTo(sha256);
    HeadObjectResponse head = s3.headObject(b -> b.bucket(bucket).key("copy-dst").checksumMode(ChecksumMode.ENABLED));
    assertThat(head.checksumSHA256()).isEqualTo(sha256);
  }

  private static PutObjectRequest.Builder with(String type, PutObjectRequest.Builder b, String value) {
    Map<String, BiFunction<PutObjectRequest.Builder, String, PutObjectRequest.Builder>> setters = Map.of(
        "crc32", PutObjectRequest.Builder::checksumCRC32, "crc32c", PutObjectRequest.Builder::checksumCRC32C,
        "crc64nvme", PutObjectRequest.Builder::checksumCRC64NVME, "sha1", PutObjectRequest.Builder::checksumSHA1,
        "sha256", PutObjectRequest.Builder::checksumSHA256);
    return setters.get(type).apply(b, value);
  }

  /** The flexible checksums a response carried, by type name. */
  private static Map<String, String> answered(String crc32, String crc32c, String crc64nvme,
      String sha1, String sha256) {
    Map<String, String> out = new java.util.TreeMap<>();
    String[] names = {"crc32", "crc32c", "crc64nvme", "sha1", "sha256"};
    String[] values = {crc32, crc32c, crc64nvme, sha1, sha256};
    for (int i = 0; i < names.length; i++) {
      if (values[i] != null) {
        out.put(names[i], values[i]);
      }
    }
    return out;
  }

  /** The base64 of the big-endian checksum, as S3 clients send it. */
  private static String base64Of(String type, byte[] data) throws Exception {
    byte[] raw = switch (type) {
      case "crc32" -> crc(new CRC32(), data);
      case "crc32c" -> crc(new CRC32C(), data);
      case "crc64nvme" -> java.nio.ByteBuffer.allocate(8).putLong(crc64Nvme(data)).array();
      case "sha1" -> MessageDigest.getInstance("SHA-1").digest(data);
      case "sha256" -> MessageDigest.getInstance("SHA-256").digest(data);
      default -> throw new IllegalArgumentException(type);
    };
    return Base64.getEncoder().encodeToString(raw);
  }

  private static byte[] crc(Checksum c, byte[] data) {
    c.update(data, 0, data.length);
    return java.nio.ByteBuffer.allocate(4).putInt((int) c.getValue()).array();
  }

  /** CRC-64/NVME bit by bit from its definition (reflected polynomial 0x9a6c9329ac4bc9b5, all-ones init and xor). */
  private static long crc64Nvme(byte[] data) {
    long crc = -1L;
    for (byte b : data) {
      crc ^= b & 0xff;
      for (int k = 0; k < 8; k++) {
        crc = (crc & 1) != 0 ? (crc >>> 1) ^ 0x9a6c9329ac4bc9b5L : crc >>> 1;
      }
    }
    return ~crc;
  }
}
