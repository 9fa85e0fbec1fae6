package io.granary.it.s3;

import static io.granary.it.s3.S3Support.assertS3Error;
import static io.granary.it.s3.S3Support.md5Base64;
import static org.assertj.core.api.Assertions.assertThat;

import io.granary.it.support.Content;
import io.granary.it.support.Http;
import io.granary.it.support.RawHttp;
import io.granary.it.support.TestCluster;
import io.granary.it.support.Resources;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.Bucket;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Malformed S3 requests, signed correctly and sent as raw HTTP (what a buggy or hostile client sends, which SDKs
 * would not): each gets a 400 with the S3 error code clients expect, and changes nothing. After every test the
 * bucket holds exactly the objects it held before with the same content, the bucket list is unchanged, and no
 * work file is left on a target.
 */
class S3BadInputIT {
  private static final String BUCKET = "s3badinput";
  private static final Map<String, byte[]> KEEP = Map.of(
      "keep/one", Content.bytes(1, 100_000),
      "keep/two with space", Content.bytes(2, 5000));
  private static TestCluster cluster;
  private static S3Client s3;
  private static List<String> buckets;

  @BeforeAll
  static void start() throws Exception {
    cluster = TestCluster.start("s3badinput", 2);
    s3 = S3Support.sync(cluster);
    s3.createBucket(b -> b.bucket(BUCKET));
    KEEP.forEach((k, v) -> s3.putObject(b -> b.bucket(BUCKET).key(k), RequestBody.fromBytes(v)));
    buckets = bucketNames();
  }

  @AfterAll
  static void stop() {
    Resources.closeAll(s3, cluster);
  }

  private static List<String> bucketNames() {
    return s3.listBuckets().buckets().stream().map(Bucket::name).sorted().toList();
  }

  /** Nothing changed: the same objects with the same content, the same buckets, no work files left behind. */
  @AfterEach
  void nothingChanged() throws Exception {
    List<String> keys = new ArrayList<>();
    s3.listObjectsV2Paginator(b -> b.bucket(BUCKET)).contents().stream().map(S3Object::key).forEach(keys::add);
    assertThat(keys).containsExactlyInAnyOrderElementsOf(KEEP.keySet());
    for (Map.Entry<String, byte[]> e : KEEP.entrySet()) {
      assertThat(s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(e.getKey())).asByteArray()).as(e.getKey())
          .isEqualTo(e.getValue());
    }
    assertThat(bucketNames()).isEqualTo(buckets);
    Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(workFiles()).isEmpty());
  }

  private static List<Path> workFiles() throws Exception {
    List<Path> all = new ArrayList<>();
    for (String t : cluster.targetIds()) {
      for (Path mp : cluster.mountpaths(t)) {
        Path work = mp.resolve("work");
        if (Files.isDirectory(work)) {
          try (Stream<Path> s = Files.list(work)) {
            all.addAll(s.toList());
          }
        }
      }
    }
    return all;
  }

  private static Http.Reply send(String method, String pathAndQuery, Map<String, String> headers, byte[] body)
      throws Exception {
    return S3Support.sendSigned(cluster, method, pathAndQuery, headers, body, body);
  }

  private static Http.Reply sendXml(String method, String pathAndQuery, String xml) throws Exception {
    byte[] body = xml.getBytes(StandardCharsets.UTF_8);
    return send(method, pathAndQuery, Map.of("Content-MD5", md5Base64(body), "Content-Type", "application/xml"), body);
  }

  private static void assertError(Http.Reply r, int status, String code) {
    assertThat(r.status()).as(S3Support.brief(r)).isEqualTo(status);
    assertThat(r.header("content-type").orElse("")).contains("xml");
    assertThat(r.bodyText()).as(S3Support.brief(r)).contains("<Code>" + code + "</Code>");
  }

  private static String path(String key) {
    return "/" + BUCKET + "/" + URLEncoder.encode(key, StandardCharsets.UTF_8).replace("+", "%20")
        .replace("%2F", "/");
  }

  private static final String XXE_FILE = "<?xml version=\"1.0\"?><!DOCTYPE %s [<!ENTITY xxe SYSTEM \"file:///etc/passwd\">]>";
  private static final String LAUGHS = "<?xml version=\"1.0\"?><!DOCTYPE %s [<!ENTITY a \"aaaaaaaaaa\">"
      + "<!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\"><!ENTITY c \"&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;\">"
      + "<!ENTITY d \"&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;\"><!ENTITY e \"&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;\">]>";

  @Test
  void completeMultipartUpload_malformedXml_is400MalformedXml_andTheUploadSurvives() throws Exception {
    String key = "mpu/malformed";
    String uploadId = s3.createMultipartUpload(b -> b.bucket(BUCKET).key(key)).uploadId();
    String etag = s3.uploadPart(b -> b.bucket(BUCKET).key(key).uploadId(uploadId).partNumber(1),
        RequestBody.fromBytes(Content.bytes(3, 1000))).eTag();
    String part = "<Part><PartNumber>1</PartNumber><ETag>" + etag + "</ETag></Part>";
    List<String> bodies = List.of(
        "<CompleteMultipartUpload>" + part, // truncated
        "<CompleteMultipartUpload>" + part + "</Complete>", // mismatched end tag
        "<Other>" + part + "</Other>", // wrong root
        "<CompleteMultipartUpload></CompleteMultipartUpload>", // no parts
        "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber></Part></CompleteMultipartUpload>", // no ETag
        "<CompleteMultipartUpload><Part><ETag>" + etag + "</ETag></Part></CompleteMultipartUpload>", // no number
        "<CompleteMultipartUpload><Part><PartNumber>one</PartNumber><ETag>" + etag
            + "</ETag></Part></CompleteMultipartUpload>",
        "plain text, not XML",
        String.format(XXE_FILE, "CompleteMultipartUpload")
            + "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>&xxe;</ETag></Part></CompleteMultipartUpload>",
        String.format(LAUGHS, "CompleteMultipartUpload")
            + "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>&e;</ETag></Part></CompleteMultipartUpload>");
    for (String body : bodies) {
      Http.Reply r = sendXml("POST", path(key) + "?uploadId=" + uploadId, body);
      assertError(r, 400, "MalformedXML");
      assertThat(r.bodyText()).as("no file content leaks").doesNotContain("root:");
    }
    // Nothing was created and the upload is intact: it still completes with a correct list.
    assertThat(s3.listParts(b -> b.bucket(BUCKET).key(key).uploadId(uploadId)).parts()).hasSize(1);
    s3.abortMultipartUpload(b -> b.bucket(BUCKET).key(key).uploadId(uploadId));
  }

  @Test
  void deleteObjects_malformedXmlAndXxe_are400MalformedXml_andDeleteNothing() throws Exception {
    String one = "<Object><Key>keep/one</Key></Object>";
    List<String> bodies = List.of(
        "<Delete>" + one,
        "<Delete>" + one + "</Delete><Delete>" + one + "</Delete>", // two roots
        "<Remove>" + one + "</Remove>",
        "<Delete><Object><VersionId>x</VersionId></Object></Delete>", // no Key
        "<Delete>" + one + "<Quiet>perhaps</Quiet></Delete>",
        "{\"Delete\":[\"keep/one\"]}",
        String.format(XXE_FILE, "Delete") + "<Delete><Object><Key>&xxe;</Key></Object></Delete>",
        String.format(XXE_FILE, "Delete") + "<Delete>" + one + "</Delete>", // a DOCTYPE at all
        String.format(LAUGHS, "Delete") + "<Delete><Object><Key>&e;</Key></Object></Delete>");
    for (String body : bodies) {
      Http.Reply r = sendXml("POST", "/" + BUCKET + "?delete", body);
      assertError(r, 400, "MalformedXML");
      assertThat(r.bodyText()).doesNotContain("root:");
    }
    // More than 1000 keys in one request.
    StringBuilder many = new StringBuilder("<Delete>");
    for (int i = 0; i < 1001; i++) {
      many.append("<Object><Key>keep/one</Key></Object>");
    }
    assertError(sendXml("POST", "/" + BUCKET + "?delete", many.append("</Delete>").toString()), 400, "MalformedXML");
  }

  @Test
  void deleteObjects_wrongContentMd5_is400BadDigest_andDeletesNothing() throws Exception {
    byte[] body = "<Delete><Object><Key>keep/one</Key></Object></Delete>".getBytes(StandardCharsets.UTF_8);
    Http.Reply r = send("POST", "/" + BUCKET + "?delete",
        Map.of("Content-MD5", md5Base64("something else".getBytes(StandardCharsets.UTF_8))), body);
    assertError(r, 400, "BadDigest");
  }

  @Test
  void overLongKeys_are400KeyTooLongError_on_put_get_head_andDelete() throws Exception {
    String ascii = "k/" + "x".repeat(1023); // 1025 bytes
    String multibyte = "k/" + "日".repeat(341); // 2 + 1023 = 1025 bytes of UTF-8, 343 chars
    for (String key : List.of(ascii, multibyte)) {
      assertThat(key.getBytes(StandardCharsets.UTF_8)).hasSize(1025);
      assertError(send("PUT", path(key), Map.of(), Content.bytes(4, 100)), 400, "KeyTooLongError");
      assertError(send("GET", path(key), Map.of(), null), 400, "KeyTooLongError");
      assertS3Error(() -> s3.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromBytes(new byte[10])), 400,
          "KeyTooLongError");
      assertS3Error(() -> s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key)), 400, "KeyTooLongError");
      assertS3Error(() -> s3.deleteObject(b -> b.bucket(BUCKET).key(key)), 400, "KeyTooLongError");
      assertS3Error(() -> s3.createMultipartUpload(b -> b.bucket(BUCKET).key(key)), 400, "KeyTooLongError");
    }
    // 1024 bytes is the limit, and allowed.
    String longest = "k/" + "y".repeat(1022);
    byte[] data = Content.bytes(5, 100);
    s3.putObject(b -> b.bucket(BUCKET).key(longest), RequestBody.fromBytes(data));
    assertThat(s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(longest)).asByteArray()).isEqualTo(data);
    s3.deleteObject(b -> b.bucket(BUCKET).key(longest));
  }

  @Test
  void keysGranaryRefuses_are400InvalidArgument() throws Exception {
    for (String raw : List.of("/" + BUCKET + "/bad/../escape", "/" + BUCKET + "/bad/./dot",
        "/" + BUCKET + "/bad%00nul")) {
      assertError(send("PUT", raw, Map.of(), Content.bytes(6, 100)), 400, "InvalidArgument");
    }
  }

  @Test
  void wrongContentMd5_onPutObject_is400BadDigest_storingNothing_andKeepingTheOldVersion() throws Exception {
    byte[] data = Content.bytes(7, 200_000);
    String wrong = md5Base64(Content.bytes(8, 10));
    // Raw, with the payload hash signed.
    assertError(send("PUT", path("keep/one"), Map.of("Content-MD5", wrong), data), 400, "BadDigest");
    assertError(send("PUT", path("new/raw-bad-md5"), Map.of("Content-MD5", wrong), data), 400, "BadDigest");
    // With the SDK (aws-chunked with its own CRC32 trailer besides).
    assertS3Error(() -> s3.putObject(b -> b.bucket(BUCKET).key("keep/one").contentMD5(wrong),
        RequestBody.fromBytes(data)), 400, "BadDigest");
    assertS3Error(() -> s3.putObject(b -> b.bucket(BUCKET).key("new/sdk-bad-md5").contentMD5(wrong),
        RequestBody.fromBytes(data)), 400, "BadDigest");
    // A Content-MD5 that is not the base64 of 16 bytes.
    assertError(send("PUT", path("new/not-an-md5"), Map.of("Content-MD5", "bm90LWFuLW1kNQ=="), data), 400,
        "InvalidDigest");
  }

  @Test
  void wrongChecksumHeader_onPutObject_is400BadDigest_storingNothing() {
    byte[] data = Content.bytes(9, 50_000);
    assertS3Error(() -> s3.putObject(b -> b.bucket(BUCKET).key("keep/one").checksumCRC32("AAAAAA=="),
        RequestBody.fromBytes(data)), 400, "BadDigest");
    assertS3Error(() -> s3.putObject(b -> b.bucket(BUCKET).key("new/bad-sha256")
        .checksumSHA256(java.util.Base64.getEncoder().encodeToString(new byte[32])), RequestBody.fromBytes(data)),
        400, "BadDigest");
  }

  @Test
  void invalidBucketNames_are400InvalidBucketName_andCreateNothing() throws Exception {
    for (String name : List.of("ab", "UPPER", "a..b", "-dash", "has_underscore", "a".repeat(64))) {
      assertError(send("PUT", "/" + name, Map.of(), new byte[0]), 400, "InvalidBucketName");
    }
    // An object request naming an invalid bucket.
    assertError(send("PUT", "/UPPER/key", Map.of(), Content.bytes(10, 10)), 400, "InvalidBucketName");
    assertError(send("GET", "/a..b/key", Map.of(), null), 400, "InvalidBucketName");
  }

  @Test
  void createBucketConfiguration_malformed_is400MalformedXml() throws Exception {
    assertError(sendXml("PUT", "/s3badinput-cfg", "<CreateBucketConfiguration><LocationConstraint>"), 400,
        "MalformedXML");
    assertError(sendXml("PUT", "/s3badinput-cfg", String.format(XXE_FILE, "CreateBucketConfiguration")
        + "<CreateBucketConfiguration><LocationConstraint>&xxe;</LocationConstraint></CreateBucketConfiguration>"),
        400, "MalformedXML");
  }

  @Test
  void oversizedUserMetadata_is400MetadataTooLarge_storingNothing() {
    Map<String, String> big = Map.of("big", "v".repeat(2100));
    assertS3Error(() -> s3.putObject(b -> b.bucket(BUCKET).key("keep/one").metadata(big),
        RequestBody.fromBytes(new byte[100])), 400, "MetadataTooLarge");
    assertS3Error(() -> s3.putObject(b -> b.bucket(BUCKET).key("new/big-meta").metadata(big),
        RequestBody.fromBytes(new byte[100])), 400, "MetadataTooLarge");
  }

  @Test
  void badListingArguments_are400InvalidArgument() throws Exception {
    assertError(send("GET", "/" + BUCKET + "?list-type=2&max-keys=lots", Map.of(), null), 400, "InvalidArgument");
    assertError(send("GET", "/" + BUCKET + "?list-type=2&continuation-token=%25%25not-a-token", Map.of(), null),
        400, "InvalidArgument");
    assertError(send("GET", "/" + BUCKET + "?list-type=3", Map.of(), null), 400, "InvalidArgument");
    assertError(send("GET", "/" + BUCKET + "?encoding-type=base64", Map.of(), null), 400, "InvalidArgument");
  }

  @Test
  void unsupportedSubresources_are501NotImplemented_andChangeNothing() throws Exception {
    assertError(send("PUT", path("keep/one") + "?tagging",
        Map.of(), "<Tagging><TagSet></TagSet></Tagging>".getBytes(StandardCharsets.UTF_8)), 501, "NotImplemented");
    assertError(send("PUT", "/" + BUCKET + "?cors", Map.of(), new byte[0]), 501, "NotImplemented");
    assertError(send("GET", "/" + BUCKET + "?policy", Map.of(), null), 501, "NotImplemented");
    assertError(send("DELETE", "/" + BUCKET + "?lifecycle", Map.of(), null), 501, "NotImplemented");
  }

  @Test
  void bodyShorterThanItsContentLength_thenClientGone_storesNothing() throws Exception {
    try (var presigner = S3Support.presigner(cluster)) {
      for (String key : List.of("keep/one", "new/short-body")) {
        var p = presigner.presignPutObject(r -> r.signatureDuration(Duration.ofMinutes(5))
            .putObjectRequest(o -> o.bucket(BUCKET).key(key)));
        java.net.URI u = p.url().toURI();
        String target = u.getRawPath() + "?" + u.getRawQuery();
        byte[] half = Content.bytes(11, 50_000);
        RawHttp.Response r;
        try {
          r = RawHttp.exchange(cluster.endpoint(), "PUT " + target + " HTTP/1.1\r\nContent-Length: 100000", half, true);
        } catch (java.io.IOException closed) {
          r = null; // the proxy may just close the connection of a client that cannot finish its body
        }
        if (r != null) {
          assertThat(r.status()).as(r.body()).isEqualTo(400);
          assertThat(r.body()).contains("<Code>IncompleteBody</Code>");
        }
      }
    }
  }
}
