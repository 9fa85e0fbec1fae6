package io.granary.it.s3;

import static io.granary.it.s3.S3Support.assertS3Error;
import static io.granary.it.s3.S3Support.md5Hex;
import static io.granary.it.s3.S3Support.unquote;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.granary.it.support.Content;
import io.granary.it.support.Http;
import io.granary.it.support.TestCluster;
import io.granary.it.support.Resources;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CopyObjectResponse;
import software.amazon.awssdk.services.s3.model.DeleteObjectsResponse;
import software.amazon.awssdk.services.s3.model.DeletedObject;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.MetadataDirective;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Error;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * CopyObject and DeleteObjects through the S3 API of a 2-target cluster. Copies are exercised with source and
 * destination on the same target (read from local disk) and on different targets (streamed from the source's
 * owner), within a bucket and across buckets, with both metadata directives and the copy-source conditions.
 */
class S3CopyDeleteIT {
  private static final String BUCKET = "s3copy";
  private static final String OTHER = "s3copy-other";
  private static TestCluster cluster;
  private static S3Client s3;

  @BeforeAll
  static void start() throws Exception {
    cluster = TestCluster.start("s3copy", 2);
    s3 = S3Support.sync(cluster);
    s3.createBucket(b -> b.bucket(BUCKET));
    s3.createBucket(b -> b.bucket(OTHER));
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(s3, cluster);
  }

  private static String owner(String bucket, String key) throws Exception {
    return cluster.owner(bucket, key).id();
  }

  /** A key {@code base-N} in {@code bucket} whose HRW owner is (or, with {@code same} false, is not) {@code target}. */
  private static String keyOwnedSo(String bucket, String base, String target, boolean same) throws Exception {
    for (int i = 0; i < 1000; i++) {
      String k = base + "-" + i;
      if (owner(bucket, k).equals(target) == same) {
        return k;
      }
    }
    throw new IllegalStateException("no key found");
  }

  private static byte[] get(String bucket, String key) {
    return s3.getObjectAsBytes(b -> b.bucket(bucket).key(key)).asByteArray();
  }

  private static CopyObjectResponse copy(String srcBucket, String srcKey, String dstBucket, String dstKey) {
    return s3.copyObject(b -> b.sourceBucket(srcBucket).sourceKey(srcKey).destinationBucket(dstBucket)
        .destinationKey(dstKey));
  }

  @Test
  void copyWithinBucket_toAnotherTarget_andToTheSameTarget_isByteExact_withMd5Etag() throws Exception {
    byte[] data = Content.bytes(1, 3_000_000);
    String src = "copy/src ünï+code?q=1#frag%41";
    s3.putObject(b -> b.bucket(BUCKET).key(src), RequestBody.fromBytes(data));
    String srcOwner = owner(BUCKET, src);
    String remote = keyOwnedSo(BUCKET, "copy/dst remote", srcOwner, false);
    String local = keyOwnedSo(BUCKET, "copy/dst local", srcOwner, true);
    assertThat(owner(BUCKET, remote)).isNotEqualTo(srcOwner);
    assertThat(owner(BUCKET, local)).isEqualTo(srcOwner);

    for (String dst : List.of(remote, local)) {
      CopyObjectResponse r = copy(BUCKET, src, BUCKET, dst);
      assertThat(unquote(r.copyObjectResult().eTag())).as(dst).isEqualTo(md5Hex(data));
      assertThat(r.copyObjectResult().lastModified()).isNotNull();
      assertThat(get(BUCKET, dst)).as(dst).isEqualTo(data);
      assertThat(unquote(s3.headObject(b -> b.bucket(BUCKET).key(dst)).eTag())).isEqualTo(md5Hex(data));
    }
    // The source is untouched.
    assertThat(get(BUCKET, src)).isEqualTo(data);
  }

  @Test
  void copyToAnotherBucket_onAnotherTarget_andOnTheSameTarget_isByteExact() throws Exception {
    byte[] data = Content.bytes(2, 12 * 1024 * 1024 + 3); // more than one read buffer
    String src = "xbucket/source";
    s3.putObject(b -> b.bucket(BUCKET).key(src), RequestBody.fromBytes(data));
    String srcOwner = owner(BUCKET, src);
    String remote = keyOwnedSo(OTHER, "xbucket/remote", srcOwner, false);
    String local = keyOwnedSo(OTHER, "xbucket/local", srcOwner, true);
    for (String dst : List.of(remote, local)) {
      CopyObjectResponse r = copy(BUCKET, src, OTHER, dst);
      assertThat(unquote(r.copyObjectResult().eTag())).as(dst).isEqualTo(md5Hex(data));
      assertThat(get(OTHER, dst)).as(dst).isEqualTo(data);
    }
    assertThat(s3.listObjectsV2(b -> b.bucket(OTHER).prefix("xbucket/")).contents()).extracting(S3Object::key)
        .containsExactlyInAnyOrder(remote, local);
  }

  @Test
  void emptyObject_copiesLocallyAndRemotely() throws Exception {
    String src = "empty/src";
    s3.putObject(b -> b.bucket(BUCKET).key(src), RequestBody.empty());
    String srcOwner = owner(BUCKET, src);
    for (String dst : List.of(keyOwnedSo(BUCKET, "empty/remote", srcOwner, false),
        keyOwnedSo(BUCKET, "empty/local", srcOwner, true))) {
      CopyObjectResponse r = copy(BUCKET, src, BUCKET, dst);
      assertThat(unquote(r.copyObjectResult().eTag())).isEqualTo(md5Hex(new byte[0]));
      assertThat(get(BUCKET, dst)).isEmpty();
      assertThat(s3.headObject(b -> b.bucket(BUCKET).key(dst)).contentLength()).isZero();
    }
  }

  @Test
  void metadataDirective_copyKeepsSourceMetadata_replaceTakesTheRequests() throws Exception {
    String src = "meta/src";
    byte[] data = Content.bytes(3, 10_000);
    s3.putObject(b -> b.bucket(BUCKET).key(src).contentType("image/png").metadata(Map.of("camera", "x100", "iso", "200")),
        RequestBody.fromBytes(data));
    String srcOwner = owner(BUCKET, src);
    for (boolean sameTarget : new boolean[] {true, false}) {
      String copied = keyOwnedSo(BUCKET, "meta/copied-" + sameTarget, srcOwner, sameTarget);
      s3.copyObject(b -> b.sourceBucket(BUCKET).sourceKey(src).destinationBucket(BUCKET).destinationKey(copied)
          .metadataDirective(MetadataDirective.COPY));
      HeadObjectResponse c = s3.headObject(b -> b.bucket(BUCKET).key(copied));
      assertThat(c.contentType()).as(copied).isEqualTo("image/png");
      assertThat(c.metadata()).as(copied).isEqualTo(Map.of("camera", "x100", "iso", "200"));

      String replaced = keyOwnedSo(BUCKET, "meta/replaced-" + sameTarget, srcOwner, sameTarget);
      s3.copyObject(b -> b.sourceBucket(BUCKET).sourceKey(src).destinationBucket(BUCKET).destinationKey(replaced)
          .metadataDirective(MetadataDirective.REPLACE).contentType("text/csv").metadata(Map.of("label", "new")));
      HeadObjectResponse r = s3.headObject(b -> b.bucket(BUCKET).key(replaced));
      assertThat(r.contentType()).as(replaced).isEqualTo("text/csv");
      assertThat(r.metadata()).as(replaced).isEqualTo(Map.of("label", "new"));
      assertThat(get(BUCKET, replaced)).isEqualTo(data);
    }
  }

  @Test
  void copyOntoItself_withoutReplace_is400InvalidRequest_withReplace_updatesMetadata() {
    String key = "self/object";
    byte[] data = Content.bytes(4, 5000);
    s3.putObject(b -> b.bucket(BUCKET).key(key).metadata(Map.of("v", "1")), RequestBody.fromBytes(data));
    assertS3Error(() -> copy(BUCKET, key, BUCKET, key), 400, "InvalidRequest");
    assertS3Error(() -> s3.copyObject(b -> b.sourceBucket(BUCKET).sourceKey(key).destinationBucket(BUCKET)
        .destinationKey(key).metadataDirective(MetadataDirective.COPY)), 400, "InvalidRequest");
    assertThat(s3.headObject(b -> b.bucket(BUCKET).key(key)).metadata()).isEqualTo(Map.of("v", "1"));

    s3.copyObject(b -> b.sourceBucket(BUCKET).sourceKey(key).destinationBucket(BUCKET).destinationKey(key)
        .metadataDirective(MetadataDirective.REPLACE).metadata(Map.of("v", "2")));
    assertThat(s3.headObject(b -> b.bucket(BUCKET).key(key)).metadata()).isEqualTo(Map.of("v", "2"));
    assertThat(get(BUCKET, key)).isEqualTo(data);
  }

  @Test
  void copyOfAMissingSource_isNoSuchKey_onBothPaths_andCreatesNothing() throws Exception {
    String src = "missing/source";
    String srcOwner = owner(BUCKET, src);
    for (boolean sameTarget : new boolean[] {true, false}) {
      String dst = keyOwnedSo(BUCKET, "missing/dst-" + sameTarget, srcOwner, sameTarget);
      assertS3Error(() -> copy(BUCKET, src, BUCKET, dst), 404, "NoSuchKey");
      assertThat(catchThrowable(() -> s3.headObject(b -> b.bucket(BUCKET).key(dst)))).isInstanceOf(NoSuchKeyException.class);
    }
    assertS3Error(() -> copy("s3copy-no-such-bucket", "k", BUCKET, "missing/x"), 404, "NoSuchBucket");
  }

  @Test
  void copySourceConditions_failingAre412_andLeaveTheDestinationAlone() throws Exception {
    String src = "cond/src";
    byte[] data = Content.bytes(5, 20_000);
    String etag = s3.putObject(b -> b.bucket(BUCKET).key(src), RequestBody.fromBytes(data)).eTag();
    Instant modified = s3.headObject(b -> b.bucket(BUCKET).key(src)).lastModified();
    String srcOwner = owner(BUCKET, src);
    for (boolean sameTarget : new boolean[] {true, false}) {
      String dst = keyOwnedSo(BUCKET, "cond/dst-" + sameTarget, srcOwner, sameTarget);
      byte[] old = Content.bytes(6, 100);
      s3.putObject(b -> b.bucket(BUCKET).key(dst), RequestBody.fromBytes(old));

      assertS3Error(() -> s3.copyObject(b -> b.sourceBucket(BUCKET).sourceKey(src).destinationBucket(BUCKET)
          .destinationKey(dst).copySourceIfMatch("\"00000000000000000000000000000000\"")), 412, "PreconditionFailed");
      assertS3Error(() -> s3.copyObject(b -> b.sourceBucket(BUCKET).sourceKey(src).destinationBucket(BUCKET)
          .destinationKey(dst).copySourceIfNoneMatch(etag)), 412, "PreconditionFailed");
      assertS3Error(() -> s3.copyObject(b -> b.sourceBucket(BUCKET).sourceKey(src).destinationBucket(BUCKET)
          .destinationKey(dst).copySourceIfUnmodifiedSince(modified.minusSeconds(3600))), 412, "PreconditionFailed");
      assertThat(get(BUCKET, dst)).as("destination kept after refused copies").isEqualTo(old);

      // Conditions that hold let the copy through.
      s3.copyObject(b -> b.sourceBucket(BUCKET).sourceKey(src).destinationBucket(BUCKET).destinationKey(dst)
          .copySourceIfMatch(etag).copySourceIfUnmodifiedSince(modified.plusSeconds(3600)));
      assertThat(get(BUCKET, dst)).isEqualTo(data);
    }
  }

  @Test
  void copyOfAMultipartSource_hasTheContentAndAPlainMd5Etag() throws Exception {
    String src = "mpu-src/object";
    byte[] p1 = Content.bytes(7, 5 << 20);
    byte[] p2 = Content.bytes(8, 1000);
    String uploadId = s3.createMultipartUpload(b -> b.bucket(BUCKET).key(src)).uploadId();
    String e1 = s3.uploadPart(b -> b.bucket(BUCKET).key(src).uploadId(uploadId).partNumber(1), RequestBody.fromBytes(p1)).eTag();
    String e2 = s3.uploadPart(b -> b.bucket(BUCKET).key(src).uploadId(uploadId).partNumber(2), RequestBody.fromBytes(p2)).eTag();
    s3.completeMultipartUpload(b -> b.bucket(BUCKET).key(src).uploadId(uploadId).multipartUpload(m -> m.parts(
        p -> p.partNumber(1).eTag(e1), p -> p.partNumber(2).eTag(e2))));
    byte[] all = new byte[p1.length + p2.length];
    System.arraycopy(p1, 0, all, 0, p1.length);
    System.arraycopy(p2, 0, all, p1.length, p2.length);
    String dst = keyOwnedSo(OTHER, "mpu-copy", owner(BUCKET, src), false);
    CopyObjectResponse r = copy(BUCKET, src, OTHER, dst);
    assertThat(unquote(r.copyObjectResult().eTag())).isEqualTo(md5Hex(all));
    assertThat(get(OTHER, dst)).isEqualTo(all);
  }

  @Test
  void deleteObjects_verbose_reportsEveryKeyDeleted_includingMissingOnes() {
    List<String> existing = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      String k = "bulk-verbose/" + i + (i % 3 == 0 ? " spaced ü" : "");
      s3.putObject(b -> b.bucket(BUCKET).key(k), RequestBody.fromString(k));
      existing.add(k);
    }
    List<String> missing = List.of("bulk-verbose/missing-1", "bulk-verbose/missing-2");
    List<ObjectIdentifier> ids = new ArrayList<>();
    existing.forEach(k -> ids.add(ObjectIdentifier.builder().key(k).build()));
    missing.forEach(k -> ids.add(ObjectIdentifier.builder().key(k).build()));

    DeleteObjectsResponse r = s3.deleteObjects(b -> b.bucket(BUCKET).delete(d -> d.objects(ids).quiet(false)));
    assertThat(r.errors()).isEmpty();
    List<String> all = new ArrayList<>(existing);
    all.addAll(missing);
    assertThat(r.deleted()).extracting(DeletedObject::key).containsExactlyInAnyOrderElementsOf(all);
    assertThat(s3.listObjectsV2(b -> b.bucket(BUCKET).prefix("bulk-verbose/")).contents()).isEmpty();
  }

  @Test
  void deleteObjects_quiet_reportsOnlyErrors_andDeletesTheValidKeys() {
    List<String> existing = List.of("bulk-quiet/a", "bulk-quiet/b/c", "bulk-quiet/d");
    for (String k : existing) {
      s3.putObject(b -> b.bucket(BUCKET).key(k), RequestBody.fromString(k));
    }
    s3.putObject(b -> b.bucket(BUCKET).key("bulk-quiet/keep"), RequestBody.fromString("keep"));
    List<ObjectIdentifier> ids = new ArrayList<>();
    existing.forEach(k -> ids.add(ObjectIdentifier.builder().key(k).build()));
    ids.add(ObjectIdentifier.builder().key("bulk-quiet/never-existed").build());
    ids.add(ObjectIdentifier.builder().key("bulk-quiet/../escape").build()); // a key Granary refuses

    DeleteObjectsResponse r = s3.deleteObjects(b -> b.bucket(BUCKET).delete(d -> d.objects(ids).quiet(true)));
    assertThat(r.deleted()).isEmpty();
    assertThat(r.errors()).extracting(S3Error::key).containsExactly("bulk-quiet/../escape");
    assertThat(r.errors()).extracting(S3Error::code).containsExactly("InvalidArgument");
    assertThat(s3.listObjectsV2(b -> b.bucket(BUCKET).prefix("bulk-quiet/")).contents()).extracting(S3Object::key)
        .containsExactly("bulk-quiet/keep");
  }

  @Test
  void deleteObjects_malformedXml_is400MalformedXml_andDeletesNothing() throws Exception {
    List<String> keys = List.of("bulk-bad/one", "bulk-bad/two");
    for (String k : keys) {
      s3.putObject(b -> b.bucket(BUCKET).key(k), RequestBody.fromString(k));
    }
    List<String> bodies = List.of(
        "<Delete><Object><Key>bulk-bad/one</Key></Object>", // truncated
        "<Delete><Object><Key>bulk-bad/one</Key></Object><Object><Key>bulk-bad/two</Key></Obj></Delete>",
        "<Delete></Delete>", // no objects
        "<Delete><Object><Key>bulk-bad/one</Key></Object><Quiet>maybe</Quiet></Delete>",
        "not xml at all");
    for (String body : bodies) {
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      Http.Reply r = S3Support.sendSigned(cluster, "POST", "/" + BUCKET + "?delete",
          Map.of("Content-MD5", S3Support.md5Base64(bytes), "Content-Type", "application/xml"), bytes, bytes);
      assertThat(r.status()).as(body + " -> " + S3Support.brief(r)).isEqualTo(400);
      assertThat(r.bodyText()).as(body).contains("<Code>MalformedXML</Code>");
    }
    for (String k : keys) {
      assertThat(s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(k)).asUtf8String()).isEqualTo(k);
    }
  }

  @Test
  void deleteObjects_ofAThousandKeys_deletesThemAll_andKeysNeedingXmlEscapesRoundTrip() {
    List<String> keys = new ArrayList<>();
    List<java.util.concurrent.CompletableFuture<?>> puts = new ArrayList<>();
    try (var async = S3Support.async(cluster)) {
      for (int i = 0; i < 1000; i++) {
        String k = String.format("thousand/%04d", i) + (i % 100 == 0 ? " <&>'\"" : "");
        keys.add(k);
        puts.add(async.putObject(b -> b.bucket(BUCKET).key(k),
            software.amazon.awssdk.core.async.AsyncRequestBody.fromString(k)));
        if (puts.size() == 64) {
          java.util.concurrent.CompletableFuture.allOf(puts.toArray(java.util.concurrent.CompletableFuture[]::new)).join();
          puts.clear();
        }
      }
      java.util.concurrent.CompletableFuture.allOf(puts.toArray(java.util.concurrent.CompletableFuture[]::new)).join();
    }
    List<String> listed = new ArrayList<>();
    s3.listObjectsV2Paginator(b -> b.bucket(BUCKET).prefix("thousand/")).contents().forEach(o -> listed.add(o.key()));
    assertThat(listed).containsExactlyInAnyOrderElementsOf(keys);
    // A page is at most 1000 keys, whatever max-keys asks for.
    assertThat(s3.listObjectsV2(b -> b.bucket(BUCKET).maxKeys(5000)).contents()).hasSize(1000);

    List<ObjectIdentifier> ids = keys.stream().map(k -> ObjectIdentifier.builder().key(k).build()).toList();
    DeleteObjectsResponse r = s3.deleteObjects(b -> b.bucket(BUCKET).delete(d -> d.objects(ids)));
    assertThat(r.errors()).isEmpty();
    assertThat(r.deleted()).extracting(DeletedObject::key).containsExactlyInAnyOrderElementsOf(keys);
    assertThat(s3.listObjectsV2(b -> b.bucket(BUCKET).prefix("thousand/")).contents()).isEmpty();
  }
}
