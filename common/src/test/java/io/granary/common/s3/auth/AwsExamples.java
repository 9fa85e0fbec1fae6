package io.granary.common.s3.auth;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;

/** The credentials, clock and requests of the SigV4 examples in the Amazon S3 API reference. */
final class AwsExamples {
  static final String ACCESS_KEY = "AKIAIOSFODNN7EXAMPLE";
  static final String SECRET_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
  static final Instant TIME = Instant.parse("2013-05-24T00:00:00Z");
  static final Clock CLOCK = Clock.fixed(TIME, ZoneOffset.UTC);
  static final String EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
  static final String CREDENTIAL = ACCESS_KEY + "/20130524/us-east-1/s3/aws4_request";

  private AwsExamples() {
  }

  static CredentialStore store() {
    return CredentialStore.of(List.of(new Credentials(ACCESS_KEY, SECRET_KEY)));
  }

  static SigV4Verifier verifier() {
    return new SigV4Verifier(store(), CLOCK);
  }

  static String authorization(String signedHeaders, String signature) {
    return "AWS4-HMAC-SHA256 Credential=" + CREDENTIAL + ",SignedHeaders=" + signedHeaders + ",Signature="
        + signature;
  }

  /** Headers from name/value pairs, in order. */
  static HttpHeaders headers(String... nameValues) {
    HttpHeaders h = new DefaultHttpHeaders();
    for (int i = 0; i < nameValues.length; i += 2) {
      h.add(nameValues[i], nameValues[i + 1]);
    }
    return h;
  }

  /** "Example: GET Object": the first 10 bytes of test.txt. */
  static SignedRequest getObject() {
    return new SignedRequest("GET", "/test.txt", "", headers(
        "Host", "examplebucket.s3.amazonaws.com",
        "Range", "bytes=0-9",
        "x-amz-content-sha256", EMPTY_SHA256,
        "x-amz-date", "20130524T000000Z",
        "Authorization", authorization("host;range;x-amz-content-sha256;x-amz-date",
            "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")));
  }

  /** "Example: PUT Object": test$file.text with "Welcome to Amazon S3.", dated by both Date and x-amz-date. */
  static SignedRequest putObject() {
    return new SignedRequest("PUT", "/test%24file.text", "", headers(
        "Host", "examplebucket.s3.amazonaws.com",
        "Date", "Fri, 24 May 2013 00:00:00 GMT",
        "x-amz-date", "20130524T000000Z",
        "x-amz-storage-class", "REDUCED_REDUNDANCY",
        "x-amz-content-sha256", "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072",
        "Authorization", authorization("date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class",
            "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd")));
  }

  /** "Example: GET Bucket Lifecycle". */
  static SignedRequest getBucketLifecycle() {
    return new SignedRequest("GET", "/", "lifecycle", headers(
        "Host", "examplebucket.s3.amazonaws.com",
        "x-amz-date", "20130524T000000Z",
        "x-amz-content-sha256", EMPTY_SHA256,
        "Authorization", authorization("host;x-amz-content-sha256;x-amz-date",
            "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543")));
  }

  /** "Example: Get Bucket (List Objects)". */
  static SignedRequest listObjects() {
    return new SignedRequest("GET", "/", "max-keys=2&prefix=J", headers(
        "Host", "examplebucket.s3.amazonaws.com",
        "x-amz-date", "20130524T000000Z",
        "x-amz-content-sha256", EMPTY_SHA256,
        "Authorization", authorization("host;x-amz-content-sha256;x-amz-date",
            "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7")));
  }

  /** The presigned GET of test.txt, valid for 86400 s. */
  static SignedRequest presignedGet() {
    return new SignedRequest("GET", "/test.txt", "X-Amz-Algorithm=AWS4-HMAC-SHA256"
        + "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request"
        + "&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host"
        + "&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404",
        headers("Host", "examplebucket.s3.amazonaws.com"));
  }

  static final String CHUNKED_SEED = "4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9";
  static final String CHUNK1_SIGNATURE = "ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648";
  static final String CHUNK2_SIGNATURE = "0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497";
  static final String FINAL_CHUNK_SIGNATURE = "b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9";

  /** "Example: PUT Object" of the chunked upload: 65 KiB of 'a' in a 64 KiB and a 1 KiB chunk. */
  static SignedRequest chunkedPut() {
    return new SignedRequest("PUT", "/examplebucket/chunkObject.txt", "", headers(
        "Host", "s3.amazonaws.com",
        "x-amz-date", "20130524T000000Z",
        "x-amz-storage-class", "REDUCED_REDUNDANCY",
        "Authorization", authorization("content-encoding;content-length;host;x-amz-content-sha256;x-amz-date;"
            + "x-amz-decoded-content-length;x-amz-storage-class", CHUNKED_SEED),
        "x-amz-content-sha256", "STREAMING-AWS4-HMAC-SHA256-PAYLOAD",
        "Content-Encoding", "aws-chunked",
        "x-amz-decoded-content-length", "66560",
        "Content-Length", "66824"));
  }

  /** The body of {@link #chunkedPut()}, 66824 bytes. */
  static byte[] chunkedBody() {
    StringBuilder sb = new StringBuilder();
    sb.append("10000;chunk-signature=").append(CHUNK1_SIGNATURE).append("\r\n").append("a".repeat(65536))
        .append("\r\n");
    sb.append("400;chunk-signature=").append(CHUNK2_SIGNATURE).append("\r\n").append("a".repeat(1024))
        .append("\r\n");
    sb.append("0;chunk-signature=").append(FINAL_CHUNK_SIGNATURE).append("\r\n\r\n");
    return sb.toString().getBytes(StandardCharsets.US_ASCII);
  }
}
