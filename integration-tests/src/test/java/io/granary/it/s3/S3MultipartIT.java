package io.granary.it.s3;

import static io.granary.it.s3.S3Support.assertS3Error;
import static io.granary.it.s3.S3Support.md5Hex;
import static io.granary.it.s3.S3Support.unquote;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.granary.it.support.Content;
import io.granary.it.support.TestCluster;
import io.granary.it.support.Resources;
import java.io.ByteArrayOutputStream;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListPartsResponse;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.Part;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

/**
 * Multipart uploads through the S3 API of a 2-target cluster: the low-level calls with the sync client, the async
 * client's own multipart upload, abort, and every refusal S3 makes at CompleteMultipartUpload and UploadPart (too
 * small, wrong ETag, wrong order, unknown upload, bad part number), after which no object exists.
 */
class S3MultipartIT {
  private static final String BUCKET = "s3multipart";
  private static final int MIB = 1 << 20;
  private static TestCluster cluster;
  private static S3Client s3;

  @BeforeAll
  static void start() throws Exception {
    cluster = TestCluster.start("s3multipart", 2);
    s3 = S3Support.sync(cluster);
    s3.createBucket(b -> b.bucket(BUCKET));
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(s3, cluster);
  }

  private static String create(String key) {
    return s3.createMultipartUpload(b -> b.bucket(BUCKET).key(key)).uploadId();
  }

  private static CompletedPart upload(String key, String uploadId, int number, byte[] data) {
    UploadPartResponse r = s3.uploadPart(b -> b.bucket(BUCKET).key(key).uploadId(uploadId).partNumber(number),
        RequestBody.fromBytes(data));
    assertThat(unquote(r.eTag())).as("part %d ETag", number).isEqualTo(md5Hex(data));
    return CompletedPart.builder().partNumber(number).eTag(r.eTag()).build();
  }

  private static CompleteMultipartUploadResponse complete(String key, String uploadId, List<CompletedPart> parts) {
    return s3.completeMultipartUpload(b -> b.bucket(BUCKET).key(key).uploadId(uploadId)
        .multipartUpload(m -> m.parts(parts)));
  }

  /** S3's multipart ETag: the MD5 of the parts' binary MD5s, a dash, the number of parts. */
  private static String multipartEtag(List<byte[]> parts) throws Exception {
    MessageDigest md = MessageDigest.getInstance("MD5");
    for (byte[] p : parts) {
      md.update(MessageDigest.getInstance("MD5").digest(p));
    }
    return HexFormat.of().formatHex(md.digest()) + "-" + parts.size();
  }

  private static void assertNoObject(String key) {
    assertThat(catchThrowable(() -> s3.headObject(b -> b.bucket(BUCKET).key(key)))).as(key)
        .isInstanceOf(NoSuchKeyException.class);
    assertThat(s3.listObjectsV2(b -> b.bucket(BUCKET).prefix(key)).contents()).as(key).isEmpty();
  }

  private static List<String> uploadIds() {
    return s3.listMultipartUploads(b -> b.bucket(BUCKET)).uploads().stream().map(MultipartUpload::uploadId).toList();
  }

  @Test
  void lowLevelMultipart_threeFullPartsAndASmallLast_listsThenCompletes_withMultipartEtag() throws Exception {
    String key = "mpu/low level/object.bin";
    List<byte[]> parts = List.of(Content.bytes(1, 5 * MIB), Content.bytes(2, 5 * MIB), Content.bytes(3, 5 * MIB),
        Content.bytes(4, 1_234_567));
    String uploadId = s3.createMultipartUpload(b -> b.bucket(BUCKET).key(key).contentType("application/x-tar")
        .metadata(Map.of("origin", "multipart"))).uploadId();
    assertThat(uploadId).isNotEmpty();

    List<CompletedPart> completed = new ArrayList<>();
    for (int i = 0; i < parts.size(); i++) {
      completed.add(upload(key, uploadId, i + 1, parts.get(i)));
    }

    ListPartsResponse listed = s3.listParts(b -> b.bucket(BUCKET).key(key).uploadId(uploadId));
    assertThat(listed.parts()).extracting(Part::partNumber).containsExactly(1, 2, 3, 4);
    assertThat(listed.parts()).extracting(Part::size).containsExactly(5L * MIB, 5L * MIB, 5L * MIB, 1_234_567L);
    for (int i = 0; i < parts.size(); i++) {
      assertThat(unquote(listed.parts().get(i).eTag())).isEqualTo(md5Hex(parts.get(i)));
    }
    List<MultipartUpload> uploads = s3.listMultipartUploads(b -> b.bucket(BUCKET)).uploads();
    assertThat(uploads).anySatisfy(u -> {
      assertThat(u.key()).isEqualTo(key);
      assertThat(u.uploadId()).isEqualTo(uploadId);
    });
    // No object until the upload completes.
    assertNoObject(key);

    CompleteMultipartUploadResponse done = complete(key, uploadId, completed);
    assertThat(unquote(done.eTag())).isEqualTo(multipartEtag(parts)).endsWith("-4");
    assertThat(done.key()).isEqualTo(key);

    ByteArrayOutputStream all = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      all.write(p);
    }
    ResponseBytes<GetObjectResponse> got = s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key));
    assertThat(got.asByteArray()).isEqualTo(all.toByteArray());
    HeadObjectResponse head = s3.headObject(b -> b.bucket(BUCKET).key(key));
    assertThat(head.contentLength()).isEqualTo(15L * MIB + 1_234_567);
    assertThat(unquote(head.eTag())).isEqualTo(multipartEtag(parts));
    assertThat(head.contentType()).isEqualTo("application/x-tar");
    assertThat(head.metadata()).isEqualTo(Map.of("origin", "multipart"));
    // A range across the boundary of parts 1 and 2.
    byte[] range = s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key).range("bytes=" + (5 * MIB - 10) + "-" + (5 * MIB + 9)))
        .asByteArray();
    assertThat(range).isEqualTo(Arrays.copyOfRange(all.toByteArray(), 5 * MIB - 10, 5 * MIB + 10));

    // The upload is gone.
    assertThat(uploadIds()).doesNotContain(uploadId);
    assertS3Error(() -> s3.listParts(b -> b.bucket(BUCKET).key(key).uploadId(uploadId)), 404, "NoSuchUpload");
  }

  @Test
  void asyncClientMultipart_twentyMib_uploadsInParts_andReadsBackByteExact() throws Exception {
    String key = "mpu/async/twenty.bin";
    int size = 20 * MIB + 12_345;
    byte[] data = Content.bytes(10, size);
    try (S3AsyncClient mp = S3Support.asyncMultipart(cluster, 6L * MIB)) {
      PutObjectResponse put = mp.putObject(b -> b.bucket(BUCKET).key(key), AsyncRequestBody.fromBytes(data)).join();
      // Four parts of 6 MiB at most: S3's multipart ETag.
      List<byte[]> parts = new ArrayList<>();
      for (int off = 0; off < size; off += 6 * MIB) {
        parts.add(Arrays.copyOfRange(data, off, Math.min(size, off + 6 * MIB)));
      }
      assertThat(unquote(put.eTag())).isEqualTo(multipartEtag(parts)).endsWith("-" + parts.size());

      byte[] viaAsync = mp.getObject(b -> b.bucket(BUCKET).key(key), AsyncResponseTransformer.toBytes()).join()
          .asByteArray();
      assertThat(viaAsync).isEqualTo(data);
    }
    assertThat(s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asByteArray()).isEqualTo(data);
    assertThat(s3.headObject(b -> b.bucket(BUCKET).key(key)).contentLength()).isEqualTo((long) size);
  }

  @Test
  void singleSmallPart_completes_withDashOneEtag() throws Exception {
    String key = "mpu/one-part";
    byte[] data = Content.bytes(20, 1000);
    String uploadId = create(key);
    CompletedPart p = upload(key, uploadId, 1, data);
    CompleteMultipartUploadResponse done = complete(key, uploadId, List.of(p));
    assertThat(unquote(done.eTag())).isEqualTo(multipartEtag(List.of(data)));
    assertThat(s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asByteArray()).isEqualTo(data);
  }

  @Test
  void reuploadedPart_replacesTheEarlierOne() throws Exception {
    String key = "mpu/reupload";
    String uploadId = create(key);
    upload(key, uploadId, 1, Content.bytes(30, 1000));
    byte[] second = Content.bytes(31, 2000);
    CompletedPart p = upload(key, uploadId, 1, second);
    assertThat(s3.listParts(b -> b.bucket(BUCKET).key(key).uploadId(uploadId)).parts()).singleElement()
        .satisfies(part -> assertThat(part.size()).isEqualTo(2000L));
    complete(key, uploadId, List.of(p));
    assertThat(s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asByteArray()).isEqualTo(second);
  }

  @Test
  void abort_dropsTheUpload_listPartsThenIsNoSuchUpload_andNoObjectExists() {
    String key = "mpu/aborted";
    String uploadId = create(key);
    upload(key, uploadId, 1, Content.bytes(40, 5 * MIB));
    upload(key, uploadId, 2, Content.bytes(41, 1000));
    assertThat(uploadIds()).contains(uploadId);

    assertThat(s3.abortMultipartUpload(b -> b.bucket(BUCKET).key(key).uploadId(uploadId)).sdkHttpResponse()
        .statusCode()).isEqualTo(204);
    assertS3Error(() -> s3.listParts(b -> b.bucket(BUCKET).key(key).uploadId(uploadId)), 404, "NoSuchUpload");
    assertS3Error(() -> upload(key, uploadId, 3, new byte[10]), 404, "NoSuchUpload");
    assertS3Error(() -> complete(key, uploadId, List.of(CompletedPart.builder().partNumber(1)
        .eTag("\"" + md5Hex(Content.bytes(40, 5 * MIB)) + "\"").build())), 404, "NoSuchUpload");
    assertS3Error(() -> s3.abortMultipartUpload(b -> b.bucket(BUCKET).key(key).uploadId(uploadId)), 404, "NoSuchUpload");
    assertThat(uploadIds()).doesNotContain(uploadId);
    assertNoObject(key);
  }

  @Test
  void complete_withASmallPartThatIsNotLast_isEntityTooSmall_andLeavesNoObject() {
    String key = "mpu/too-small";
    String uploadId = create(key);
    CompletedPart p1 = upload(key, uploadId, 1, Content.bytes(50, MIB));
    CompletedPart p2 = upload(key, uploadId, 2, Content.bytes(51, MIB));
    assertS3Error(() -> complete(key, uploadId, List.of(p1, p2)), 400, "EntityTooSmall");
    assertNoObject(key);
    // As in S3, the upload survives a refused completion and can still be completed correctly, or aborted.
    assertThat(s3.listParts(b -> b.bucket(BUCKET).key(key).uploadId(uploadId)).parts()).hasSize(2);
    complete(key, uploadId, List.of(p2));
    assertThat(s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asByteArray()).isEqualTo(Content.bytes(51, MIB));
  }

  @Test
  void complete_withAWrongEtag_isInvalidPart_andLeavesNoObject() {
    String key = "mpu/wrong-etag";
    String uploadId = create(key);
    upload(key, uploadId, 1, Content.bytes(60, 100));
    assertS3Error(() -> complete(key, uploadId, List.of(CompletedPart.builder().partNumber(1)
        .eTag("\"" + md5Hex(new byte[] {1}) + "\"").build())), 400, "InvalidPart");
    // A part number never uploaded is InvalidPart too.
    assertS3Error(() -> complete(key, uploadId, List.of(CompletedPart.builder().partNumber(7)
        .eTag("\"" + md5Hex(Content.bytes(60, 100)) + "\"").build())), 400, "InvalidPart");
    assertNoObject(key);
    s3.abortMultipartUpload(b -> b.bucket(BUCKET).key(key).uploadId(uploadId));
  }

  @Test
  void complete_withPartsOutOfOrder_isInvalidPartOrder_andLeavesNoObject() {
    String key = "mpu/out-of-order";
    String uploadId = create(key);
    CompletedPart p1 = upload(key, uploadId, 1, Content.bytes(70, 5 * MIB));
    CompletedPart p2 = upload(key, uploadId, 2, Content.bytes(71, 100));
    assertS3Error(() -> complete(key, uploadId, List.of(p2, p1)), 400, "InvalidPartOrder");
    assertS3Error(() -> complete(key, uploadId, List.of(p1, p1)), 400, "InvalidPartOrder");
    assertNoObject(key);
    s3.abortMultipartUpload(b -> b.bucket(BUCKET).key(key).uploadId(uploadId));
    assertThat(uploadIds()).doesNotContain(uploadId);
  }

  @Test
  void bogusUploadId_isNoSuchUpload_onEveryCall() {
    String key = "mpu/bogus";
    String bogus = "0123456789abcdef0123456789abcdef";
    assertS3Error(() -> s3.uploadPart(b -> b.bucket(BUCKET).key(key).uploadId(bogus).partNumber(1),
        RequestBody.fromBytes(new byte[1000])), 404, "NoSuchUpload");
    assertS3Error(() -> complete(key, bogus, List.of(CompletedPart.builder().partNumber(1)
        .eTag("\"" + md5Hex(new byte[1000]) + "\"").build())), 404, "NoSuchUpload");
    assertS3Error(() -> s3.listParts(b -> b.bucket(BUCKET).key(key).uploadId(bogus)), 404, "NoSuchUpload");
    assertS3Error(() -> s3.abortMultipartUpload(b -> b.bucket(BUCKET).key(key).uploadId(bogus)), 404, "NoSuchUpload");
    // An upload id of another key does not work for this one.
    String other = create("mpu/bogus-other");
    assertS3Error(() -> s3.uploadPart(b -> b.bucket(BUCKET).key(key).uploadId(other).partNumber(1),
        RequestBody.fromBytes(new byte[10])), 404, "NoSuchUpload");
    s3.abortMultipartUpload(b -> b.bucket(BUCKET).key("mpu/bogus-other").uploadId(other));
    assertNoObject(key);
  }

  @Test
  void partNumbersOutsideOneTo10000_areInvalidArgument() {
    String key = "mpu/part-numbers";
    String uploadId = create(key);
    for (int n : new int[] {0, 10001, -1}) {
      assertS3Error(() -> s3.uploadPart(b -> b.bucket(BUCKET).key(key).uploadId(uploadId).partNumber(n),
          RequestBody.fromBytes(new byte[10])), 400, "InvalidArgument");
    }
    assertThat(s3.listParts(b -> b.bucket(BUCKET).key(key).uploadId(uploadId)).parts()).isEmpty();
    // 10000 is allowed.
    CompletedPart last = upload(key, uploadId, 10000, Content.bytes(80, 10));
    assertS3Error(() -> complete(key, uploadId, List.of(CompletedPart.builder().partNumber(10001)
        .eTag(last.eTag()).build())), 400, "InvalidArgument");
    complete(key, uploadId, List.of(last));
    assertThat(s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asByteArray()).isEqualTo(Content.bytes(80, 10));
  }

  @Test
  void complete_withNoParts_isMalformedXml_andLeavesNoObject() {
    String key = "mpu/no-parts";
    String uploadId = create(key);
    upload(key, uploadId, 1, Content.bytes(90, 10));
    assertS3Error(() -> complete(key, uploadId, List.of()), 400, "MalformedXML");
    assertNoObject(key);
    s3.abortMultipartUpload(b -> b.bucket(BUCKET).key(key).uploadId(uploadId));
  }

  @Test
  void listParts_paginatesWithMaxParts_inPartNumberOrder() {
    String key = "mpu/many-parts";
    String uploadId = create(key);
    int[] numbers = {1, 2, 3, 9, 10, 11, 100, 1000};
    for (int n : numbers) {
      upload(key, uploadId, n, Content.bytes(100 + n, 10 + n));
    }
    List<Integer> seen = new ArrayList<>();
    s3.listPartsPaginator(b -> b.bucket(BUCKET).key(key).uploadId(uploadId).maxParts(3)).forEach(page -> {
      assertThat(page.parts().size()).isLessThanOrEqualTo(3);
      page.parts().forEach(p -> {
        seen.add(p.partNumber());
        assertThat(p.size()).isEqualTo(10L + p.partNumber());
      });
    });
    assertThat(seen).containsExactly(1, 2, 3, 9, 10, 11, 100, 1000);
    ListPartsResponse afterMarker = s3.listParts(b -> b.bucket(BUCKET).key(key).uploadId(uploadId).partNumberMarker(10));
    assertThat(afterMarker.parts()).extracting(Part::partNumber).containsExactly(11, 100, 1000);
    s3.abortMultipartUpload(b -> b.bucket(BUCKET).key(key).uploadId(uploadId));
  }

  @Test
  void listMultipartUploads_paginatesWithMaxUploads_andFiltersByPrefixAndDelimiter() {
    List<String[]> created = new ArrayList<>(); // {key, uploadId}
    for (String key : List.of("lmu/a", "lmu/b/one", "lmu/b/two", "lmu/c ü")) {
      for (int i = 0; i < 2; i++) {
        created.add(new String[] {key, create(key)});
      }
    }
    created.add(new String[] {"other/x", create("other/x")});
    try {
      List<String> seen = new ArrayList<>();
      s3.listMultipartUploadsPaginator(b -> b.bucket(BUCKET).prefix("lmu/").maxUploads(3)).forEach(page -> {
        assertThat(page.uploads().size()).isLessThanOrEqualTo(3);
        page.uploads().forEach(u -> seen.add(u.key() + " " + u.uploadId()));
      });
      List<String> expected = created.stream().filter(c -> c[0].startsWith("lmu/")).map(c -> c[0] + " " + c[1])
          .sorted(java.util.Comparator.comparing((String e) -> e.substring(0, e.lastIndexOf(' ')))
              .thenComparing(e -> e.substring(e.lastIndexOf(' ') + 1)))
          .toList();
      assertThat(seen).isEqualTo(expected);

      var grouped = s3.listMultipartUploads(b -> b.bucket(BUCKET).prefix("lmu/").delimiter("/"));
      assertThat(grouped.commonPrefixes()).extracting(cp -> cp.prefix()).containsExactly("lmu/b/");
      assertThat(grouped.uploads()).extracting(MultipartUpload::key)
          .containsExactly("lmu/a", "lmu/a", "lmu/c ü", "lmu/c ü");
    } finally {
      for (String[] c : created) {
        s3.abortMultipartUpload(b -> b.bucket(BUCKET).key(c[0]).uploadId(c[1]));
      }
    }
  }

  @Test
  void uploadPart_withAWrongContentMd5_isBadDigest_andRecordsNoPart() {
    String key = "mpu/bad-part-md5";
    String uploadId = create(key);
    byte[] data = Content.bytes(110, 100_000);
    assertS3Error(() -> s3.uploadPart(b -> b.bucket(BUCKET).key(key).uploadId(uploadId).partNumber(1)
        .contentMD5(S3Support.md5Base64(new byte[] {1})), RequestBody.fromBytes(data)), 400, "BadDigest");
    assertThat(s3.listParts(b -> b.bucket(BUCKET).key(key).uploadId(uploadId)).parts()).isEmpty();
    s3.abortMultipartUpload(b -> b.bucket(BUCKET).key(key).uploadId(uploadId));
  }

  @Test
  void getObjectByPartNumber_returnsThatPart_withThePartsCount_andHeadSaysItsLength() {
    String key = "mpu/by-part-number";
    byte[] p1 = Content.bytes(120, 5 * MIB);
    byte[] p2 = Content.bytes(121, 1000);
    String uploadId = create(key);
    CompletedPart c1 = upload(key, uploadId, 1, p1);
    CompletedPart c2 = upload(key, uploadId, 2, p2);
    complete(key, uploadId, List.of(c1, c2));

    ResponseBytes<GetObjectResponse> part = s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key).partNumber(2));
    assertThat(part.asByteArray()).as("GET ?partNumber=2 of a %d-byte object", p1.length + p2.length)
        .hasSize(p2.length);
    assertThat(Arrays.equals(part.asByteArray(), p2)).as("the bytes of part 2").isTrue();
    assertThat(part.response().partsCount()).isEqualTo(2);
    assertThat(part.response().contentRange()).isEqualTo("bytes " + p1.length + "-" + (p1.length + p2.length - 1)
        + "/" + (p1.length + p2.length));
    var head = s3.headObject(b -> b.bucket(BUCKET).key(key).partNumber(1));
    assertThat(head.contentLength()).isEqualTo(p1.length);
    assertThat(head.partsCount()).isEqualTo(2);
    assertS3Error(() -> s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key).partNumber(3)), 416, "InvalidPartNumber");
    assertS3Error(() -> s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key).partNumber(2).range("bytes=0-1")), 400,
        "InvalidRequest");
  }

  @Test
  void getObjectByPartNumber_ofAnObjectFromOnePut_hasOnePart() {
    String key = "mpu/one-put";
    byte[] data = Content.bytes(122, 3000);
    s3.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromBytes(data));
    ResponseBytes<GetObjectResponse> part = s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key).partNumber(1));
    assertThat(Arrays.equals(part.asByteArray(), data)).as("part 1 is the whole object").isTrue();
    assertThat(part.response().partsCount()).isNull();
    assertS3Error(() -> s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key).partNumber(2)), 416, "InvalidPartNumber");
  }

  @Test
  void uploadInProgress_doesNotSurviveIntoARecreatedBucket() {
    String bucket = "s3multipart-doomed";
    String key = "pending";
    s3.createBucket(b -> b.bucket(bucket));
    String uploadId = s3.createMultipartUpload(b -> b.bucket(bucket).key(key)).uploadId();
    String etag = s3.uploadPart(b -> b.bucket(bucket).key(key).uploadId(uploadId).partNumber(1),
        RequestBody.fromBytes(Content.bytes(130, 1000))).eTag();
    Throwable refused = catchThrowable(() -> s3.deleteBucket(b -> b.bucket(bucket)));
    if (refused != null) {
      // Refusing to delete a bucket with uploads in progress is fine too; then the upload is intact.
      assertThat(refused).isInstanceOf(software.amazon.awssdk.services.s3.model.S3Exception.class);
      assertThat(((software.amazon.awssdk.services.s3.model.S3Exception) refused).statusCode()).isEqualTo(409);
      assertThat(s3.listParts(b -> b.bucket(bucket).key(key).uploadId(uploadId)).parts()).hasSize(1);
      s3.abortMultipartUpload(b -> b.bucket(bucket).key(key).uploadId(uploadId));
      s3.deleteBucket(b -> b.bucket(bucket));
      return;
    }
    s3.createBucket(b -> b.bucket(bucket));
    try {
      assertThat(s3.listMultipartUploads(b -> b.bucket(bucket)).uploads()).as("uploads of the deleted bucket").isEmpty();
      Throwable t = catchThrowable(() -> s3.completeMultipartUpload(b -> b.bucket(bucket).key(key).uploadId(uploadId)
          .multipartUpload(m -> m.parts(p -> p.partNumber(1).eTag(etag)))));
      assertThat(t).as("completing an upload of the deleted bucket").isInstanceOf(
          software.amazon.awssdk.services.s3.model.S3Exception.class);
      assertThat(s3.listObjectsV2(b -> b.bucket(bucket)).contents()).as("objects of the new bucket").isEmpty();
    } finally {
      s3.listMultipartUploads(b -> b.bucket(bucket)).uploads().forEach(u ->
          s3.abortMultipartUpload(b -> b.bucket(bucket).key(u.key()).uploadId(u.uploadId())));
      s3.listObjectsV2(b -> b.bucket(bucket)).contents().forEach(o -> s3.deleteObject(b -> b.bucket(bucket).key(o.key())));
      s3.deleteBucket(b -> b.bucket(bucket));
    }
  }
}
