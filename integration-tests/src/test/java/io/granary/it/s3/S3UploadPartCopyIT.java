package io.granary.it.s3;

import static io.granary.it.s3.S3Support.assertS3Error;
import static io.granary.it.s3.S3Support.md5Hex;
import static io.granary.it.s3.S3Support.unquote;
import static org.assertj.core.api.Assertions.assertThat;

import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.Provider;
import io.granary.clustermap.hrw.PlacementKey;
import io.granary.it.cache.RemoteBuckets;
import io.granary.it.support.Content;
import io.granary.it.support.Http;
import io.granary.it.support.Resources;
import io.granary.it.support.TestCluster;
import io.granary.testkit.S3ProxyServer;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.UploadPartCopyRequest;
import software.amazon.awssdk.services.s3.model.UploadPartCopyResponse;

/**
 * UploadPartCopy through the S3 API of a 2-target cluster: parts copied whole and by {@code x-amz-copy-source-range}
 * from a local bucket (source on the destination's own target, read from disk, and on the other target, streamed
 * from it) and from a remote bucket behind S3Proxy (through the caching GET), completed and compared byte for byte;
 * the Java SDK's multipart copy; and every refusal (range malformed or past the end, missing source, unknown upload,
 * failed copy-source condition), after which the upload holds no part.
 */
class S3UploadPartCopyIT {
  private static final String LOCAL = "partcopy";
  private static final String REMOTE = "partcopy-remote";
  private static final int MIB = 1 << 20;
  private static Path work;
  private static S3ProxyServer s3proxy;
  private static S3Client backend;
  private static TestCluster cluster;
  private static S3Client s3;

  @BeforeAll
  static void start() throws Exception {
    work = Files.createTempDirectory("partcopy");
    s3proxy = S3ProxyServer.start(work.resolve("s3proxy"));
    backend = RemoteBuckets.backendClient(s3proxy);
    backend.createBucket(b -> b.bucket(REMOTE));
    cluster = TestCluster.start("partcopy", 2);
    Path creds = s3proxy.writeCredentialsFile(work.resolve("credentials"));
    Http.Reply r = RemoteBuckets.register(cluster, "aws", REMOTE, RemoteBuckets.s3Props(s3proxy.endpoint(), creds,
        "1h", false));
    assertThat(r.status()).as(r.bodyText()).isEqualTo(201);
    s3 = S3Support.sync(cluster);
    s3.createBucket(b -> b.bucket(LOCAL));
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(s3, backend, cluster, s3proxy);
  }

  private static String owner(Bucket bucket, String key) throws Exception {
    return cluster.map().placement().owner(PlacementKey.digest(bucket, key)).orElseThrow().id();
  }

  /** A key {@code base-N} whose HRW owner is (or, with {@code same} false, is not) {@code target}. */
  private static String keyOwnedSo(Bucket bucket, String base, String target, boolean same) throws Exception {
    for (int i = 0; i < 1000; i++) {
      String k = base + "-" + i;
      if (owner(bucket, k).equals(target) == same) {
        return k;
      }
    }
    throw new IllegalStateException("no key found");
  }

  private static String create(String key) {
    return s3.createMultipartUpload(b -> b.bucket(LOCAL).key(key)).uploadId();
  }

  private static UploadPartCopyResponse copyPart(String srcBucket, String srcKey, String key, String uploadId,
      int number, String range) {
    UploadPartCopyRequest.Builder b = UploadPartCopyRequest.builder().sourceBucket(srcBucket).sourceKey(srcKey)
        .destinationBucket(LOCAL).destinationKey(key).uploadId(uploadId).partNumber(number);
    if (range != null) {
      b.copySourceRange(range);
    }
    return s3.uploadPartCopy(b.build());
  }

  private static CompletedPart part(int number, UploadPartCopyResponse r) {
    return CompletedPart.builder().partNumber(number).eTag(r.copyPartResult().eTag()).build();
  }

  private static String multipartEtag(List<byte[]> parts) throws Exception {
    MessageDigest md = MessageDigest.getInstance("MD5");
    for (byte[] p : parts) {
      md.update(MessageDigest.getInstance("MD5").digest(p));
    }
    return HexFormat.of().formatHex(md.digest()) + "-" + parts.size();
  }

  /**
   * Copies {@code source} (12 MiB) into a new upload of {@code key} as parts [0, 5 MiB) and [5 MiB, 10 MiB) by range,
   * then the whole {@code tail} object without a range; completes and compares.
   */
  private static void copyInThreeParts(String srcBucket, String srcKey, byte[] source, String tailKey, byte[] tail,
      String key) throws Exception {
    String uploadId = create(key);
    List<CompletedPart> parts = new ArrayList<>();
    UploadPartCopyResponse p1 = copyPart(srcBucket, srcKey, key, uploadId, 1, "bytes=0-" + (5 * MIB - 1));
    UploadPartCopyResponse p2 = copyPart(srcBucket, srcKey, key, uploadId, 2, "bytes=" + 5 * MIB + "-" + (10 * MIB - 1));
    UploadPartCopyResponse p3 = copyPart(srcBucket, tailKey, key, uploadId, 3, null);
    byte[] b1 = Arrays.copyOfRange(source, 0, 5 * MIB);
    byte[] b2 = Arrays.copyOfRange(source, 5 * MIB, 10 * MIB);
    assertThat(unquote(p1.copyPartResult().eTag())).isEqualTo(md5Hex(b1));
    assertThat(unquote(p2.copyPartResult().eTag())).isEqualTo(md5Hex(b2));
    assertThat(unquote(p3.copyPartResult().eTag())).isEqualTo(md5Hex(tail));
    assertThat(p1.copyPartResult().lastModified()).isNotNull();
    parts.add(part(1, p1));
    parts.add(part(2, p2));
    parts.add(part(3, p3));
    assertThat(s3.listParts(b -> b.bucket(LOCAL).key(key).uploadId(uploadId)).parts())
        .extracting(software.amazon.awssdk.services.s3.model.Part::size)
        .containsExactly(5L * MIB, 5L * MIB, (long) tail.length);

    String etag = s3.completeMultipartUpload(b -> b.bucket(LOCAL).key(key).uploadId(uploadId)
        .multipartUpload(m -> m.parts(parts))).eTag();

    assertThat(unquote(etag)).isEqualTo(multipartEtag(List.of(b1, b2, tail)));
    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    expected.writeBytes(b1);
    expected.writeBytes(b2);
    expected.writeBytes(tail);
    assertThat(s3.getObjectAsBytes(b -> b.bucket(LOCAL).key(key)).asByteArray()).isEqualTo(expected.toByteArray());
  }

  @Test
  void uploadPartCopy_fromALocalBucket_withAndWithoutRange_sameAndOtherTarget_completesByteExact() throws Exception {
    String t0 = cluster.targetIds().get(0);
    Bucket local = Bucket.local(LOCAL);
    String src = keyOwnedSo(local, "src/local", t0, true);
    String tail = keyOwnedSo(local, "src/tail", t0, true);
    byte[] source = Content.bytes(100, 12 * MIB);
    byte[] tailBytes = Content.bytes(101, 300_000);
    s3.putObject(b -> b.bucket(LOCAL).key(src), RequestBody.fromBytes(source));
    s3.putObject(b -> b.bucket(LOCAL).key(tail), RequestBody.fromBytes(tailBytes));

    // Destination on the source's target (read from its disk), then on the other one (streamed across).
    copyInThreeParts(LOCAL, src, source, tail, tailBytes, keyOwnedSo(local, "dst/same", t0, true));
    copyInThreeParts(LOCAL, src, source, tail, tailBytes, keyOwnedSo(local, "dst/other", t0, false));
  }

  @Test
  void uploadPartCopy_fromARemoteBucket_uncached_withAndWithoutRange_completesByteExact() throws Exception {
    byte[] source = Content.bytes(200, 12 * MIB);
    byte[] tail = Content.bytes(201, 123_457);
    backend.putObject(b -> b.bucket(REMOTE).key("remote/src.bin"), RequestBody.fromBytes(source));
    backend.putObject(b -> b.bucket(REMOTE).key("remote/tail.bin"), RequestBody.fromBytes(tail));
    Bucket remote = new Bucket(Provider.AWS, REMOTE);
    String srcOwner = owner(remote, "remote/src.bin");

    copyInThreeParts(REMOTE, "remote/src.bin", source, "remote/tail.bin", tail,
        keyOwnedSo(Bucket.local(LOCAL), "dst/from-remote", srcOwner, false));
    copyInThreeParts(REMOTE, "remote/src.bin", source, "remote/tail.bin", tail,
        keyOwnedSo(Bucket.local(LOCAL), "dst/from-remote-same", srcOwner, true));
  }

  @Test
  void javaSdkMultipartCopy_of12MiB_withPartSize5MiB_copiesInParts_byteExact() throws Exception {
    byte[] source = Content.bytes(300, 12 * MIB);
    s3.putObject(b -> b.bucket(LOCAL).key("sdk/src.bin"), RequestBody.fromBytes(source));
    try (S3AsyncClient mp = S3Support.asyncMultipart(cluster, 5L * MIB)) {
      mp.copyObject(b -> b.sourceBucket(LOCAL).sourceKey("sdk/src.bin").destinationBucket(LOCAL)
          .destinationKey("sdk/copy.bin")).join();
    }

    String etag = unquote(s3.headObject(b -> b.bucket(LOCAL).key("sdk/copy.bin")).eTag());
    assertThat(etag).endsWith("-3");
    assertThat(s3.getObjectAsBytes(b -> b.bucket(LOCAL).key("sdk/copy.bin")).asByteArray()).isEqualTo(source);
  }

  @Test
  void uploadPartCopy_badInput_isRefusedAsS3Does_andAddsNoPart() throws Exception {
    String t0 = cluster.targetIds().get(0);
    Bucket local = Bucket.local(LOCAL);
    String here = keyOwnedSo(local, "bad/src-here", t0, true);
    String there = keyOwnedSo(local, "bad/src-there", t0, false);
    byte[] body = Content.bytes(400, 1000);
    s3.putObject(b -> b.bucket(LOCAL).key(here), RequestBody.fromBytes(body));
    s3.putObject(b -> b.bucket(LOCAL).key(there), RequestBody.fromBytes(body));
    String key = keyOwnedSo(local, "bad/dst", t0, true);
    String uploadId = create(key);

    for (String src : List.of(here, there)) { // read from disk, and from the other target
      assertS3Error(() -> copyPart(LOCAL, src, key, uploadId, 1, "bytes=0-1000"), 416, "InvalidRange");
      assertS3Error(() -> copyPart(LOCAL, src, key, uploadId, 1, "bytes=1000-1000"), 416, "InvalidRange");
      assertS3Error(() -> copyPart(LOCAL, src + "-missing", key, uploadId, 1, null), 404, "NoSuchKey");
      assertS3Error(() -> s3.uploadPartCopy(b -> b.sourceBucket(LOCAL).sourceKey(src).destinationBucket(LOCAL)
          .destinationKey(key).uploadId(uploadId).partNumber(1).copySourceIfMatch("\"" + "0".repeat(32) + "\"")),
          412, "PreconditionFailed");
    }
    for (String malformed : List.of("bytes=hello-world", "bytes=0-bar", "bytes=hello-", "bytes=0-2,3-5",
        "bytes=-5", "bytes=5-", "bytes=9-3", "0-5")) {
      assertS3Error(() -> copyPart(LOCAL, here, key, uploadId, 1, malformed), 400, "InvalidArgument");
    }
    assertS3Error(() -> copyPart(LOCAL, here, key, uploadId, 0, null), 400, "InvalidArgument");
    assertS3Error(() -> copyPart(LOCAL, here, key, "feedface", 1, null), 404, "NoSuchUpload");
    assertS3Error(() -> copyPart("no-such-bucket-here", here, key, uploadId, 1, null), 404, "NoSuchBucket");

    assertThat(s3.listParts(b -> b.bucket(LOCAL).key(key).uploadId(uploadId)).parts()).isEmpty();
    // The upload is still whole: a good copy of the last byte works.
    UploadPartCopyResponse ok = copyPart(LOCAL, there, key, uploadId, 1, "bytes=999-999");
    assertThat(unquote(ok.copyPartResult().eTag())).isEqualTo(md5Hex(Arrays.copyOfRange(body, 999, 1000)));
  }
}
