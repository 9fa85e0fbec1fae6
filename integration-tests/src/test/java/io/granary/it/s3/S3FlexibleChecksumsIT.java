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
import software.amazon.awssdk.services.s3.model.ChecksumMode;
import software.amazon.awssdk.services.s3.model.ChecksumType;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

/**
 * S3's flexible checksums ({@code x-amz-checksum-crc32|crc32c|crc64nvme|sha1|sha256}) sent as request headers with
 * the AWS SDK: a PUT whose body does not match is 400 BadDigest and stores nothing, and a whole-object GET or HEAD
 * in checksum mode answers the object's checksum (as {@code FULL_OBJECT}) when its bucket keeps one of these types.
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
  void bucketKeepingMd5_answersNoFlexibleChecksum_inChecksumMode() throws Exception {
    String bucket = bucket("md5");
    byte[] data = Content.bytes(14, 5000);
    s3.putObject(b -> b.bucket(bucket).key("md5-only"), RequestBody.fromBytes(data));
    HeadObjectResponse head = s3.headObject(b -> b.bucket(bucket).key("md5-only").checksumMode(ChecksumMode.ENABLED));
    assertThat(answered(head.checksumCRC32(), head.checksumCRC32C(), head.checksumCRC64NVME(),
        head.checksumSHA1(), head.checksumSHA256())).isEmpty();
    assertThat(head.checksumType()).isNull();
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
