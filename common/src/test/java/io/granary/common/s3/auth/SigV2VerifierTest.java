package io.granary.common.s3.auth;

import static io.granary.common.s3.auth.SigV4VerifierTest.assertRejected;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.HttpHeaders;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/**
 * Signature Version 2, header and presigned, against vectors signed by botocore 1.43.11's HmacV1Auth and
 * HmacV1QueryAuth (the first is also AWS's own documented example, "GET /photos/puppy.jpg"), and every refusal.
 */
class SigV2VerifierTest {
  private static final String DATE = "Tue, 27 Mar 2007 19:36:42 +0000";
  private static final Clock AT_DATE = Clock.fixed(Instant.parse("2007-03-27T19:36:42Z"), ZoneOffset.UTC);
  private final SigV4Verifier verifier = new SigV4Verifier(AwsExamples.store(), AT_DATE);

  @Test
  void header_awsDocumentedExample_verifies_asAnUnsignedPayload() {
    Authentication a = verifier.verify(get("/awsexamplebucket1/photos/puppy.jpg", "",
        "AWS AKIAIOSFODNN7EXAMPLE:qgk2+6Sv9/oM7G3qLEjTH1a1l1g="));

    assertThat(a.accessKey()).isEqualTo(AwsExamples.ACCESS_KEY);
    assertThat(a.payloadMode()).isEqualTo(PayloadMode.UNSIGNED);
    assertThat(a.payloadSha256()).isNull();
  }

  @Test
  void header_signsContentMd5_contentType_sortedAmzHeaders_andUploadSubresources() {
    HttpHeaders h = AwsExamples.headers("Host", "h", "Content-MD5", "1B2M2Y8AsgTpgAmY7PhCfg==",
        "Content-Type", "text/plain", "x-amz-meta-b", "2", "X-Amz-Meta-A", "one", "Date", DATE,
        "Authorization", "AWS AKIAIOSFODNN7EXAMPLE:DRNPnj4Bj95sXsV3y/hdfboYfyY=");
    SignedRequest put = new SignedRequest("PUT", "/b/k%20x%2By", "partNumber=2&uploadId=abc%2Fdef", h);

    assertThat(verifier.verify(put).accessKey()).isEqualTo(AwsExamples.ACCESS_KEY);
    // Any signed part changed: the signature no longer matches.
    assertRejected(() -> verifier.verify(with(put, "Content-Type", "text/html")), "SignatureDoesNotMatch", 403);
    assertRejected(() -> verifier.verify(with(put, "x-amz-meta-b", "3")), "SignatureDoesNotMatch", 403);
    assertRejected(() -> verifier.verify(new SignedRequest("PUT", "/b/k%20x%2By", "partNumber=3&uploadId=abc%2Fdef",
        h)), "SignatureDoesNotMatch", 403);
  }

  @Test
  void header_signsResponseOverridesAndAcl_butNotOtherParameters() {
    String auth = "AWS AKIAIOSFODNN7EXAMPLE:07hrCAAHVV7SDCEI2XrsqQnN24Q=";
    assertThat(verifier.verify(get("/b/k", "response-content-type=text%2Fplain&list-type=2&acl", auth)).accessKey())
        .isEqualTo(AwsExamples.ACCESS_KEY);
    assertThat(verifier.verify(get("/b/k", "response-content-type=text%2Fplain&list-type=1&acl", auth)).accessKey())
        .as("list-type is not a signed parameter").isEqualTo(AwsExamples.ACCESS_KEY);
    assertRejected(() -> verifier.verify(get("/b/k", "response-content-type=text%2Fhtml&list-type=2&acl", auth)),
        "SignatureDoesNotMatch", 403);
  }

  @Test
  void presigned_botocoreUrl_verifies_untilItExpires() {
    SignedRequest url = presigned("AWSAccessKeyId=AKIAIOSFODNN7EXAMPLE&Signature=JKvabVxOxoK%2FCgq8vyHQW5L%2FAC0%3D"
        + "&Expires=1175139620");

    assertThat(verifier.verify(url).payloadMode()).isEqualTo(PayloadMode.UNSIGNED);
    assertThat(SigV4Verifier.isSigned(url)).isTrue();
    SigV4Verifier later = new SigV4Verifier(AwsExamples.store(),
        Clock.fixed(Instant.ofEpochSecond(1175139621), ZoneOffset.UTC));
    assertRejected(() -> later.verify(url), "AccessDenied", 403);
  }

  @Test
  void presigned_wrongSignature_unknownKey_malformedOrMissingParameters_areRefused() {
    assertRejected(() -> verifier.verify(presigned("AWSAccessKeyId=AKIAIOSFODNN7EXAMPLE"
        + "&Signature=AKvabVxOxoK%2FCgq8vyHQW5L%2FAC0%3D&Expires=1175139620")), "SignatureDoesNotMatch", 403);
    assertRejected(() -> verifier.verify(presigned("AWSAccessKeyId=AKIAUNKNOWN00000000&Signature=x&Expires=1175139620")),
        "InvalidAccessKeyId", 403);
    assertRejected(() -> verifier.verify(presigned("AWSAccessKeyId=AKIAIOSFODNN7EXAMPLE&Signature=x&Expires=soon")),
        "AuthorizationQueryParametersError", 400);
    assertRejected(() -> verifier.verify(presigned("AWSAccessKeyId=AKIAIOSFODNN7EXAMPLE&Signature=x")),
        "AuthorizationQueryParametersError", 400);
    assertRejected(() -> verifier.verify(presigned("AWSAccessKeyId=AKIAIOSFODNN7EXAMPLE&Signature=x&Signature=y"
        + "&Expires=1175139620")), "AuthorizationQueryParametersError", 400);
  }

  @Test
  void header_wrongSecret_unknownKey_malformed_stale_orCombinedWithAPresign_areRefused() {
    assertRejected(() -> verifier.verify(get("/awsexamplebucket1/photos/puppy.jpg", "",
        "AWS AKIAIOSFODNN7EXAMPLE:rgk2+6Sv9/oM7G3qLEjTH1a1l1g=")), "SignatureDoesNotMatch", 403);
    assertRejected(() -> verifier.verify(get("/awsexamplebucket1/photos/puppy.jpg", "",
        "AWS AKIAUNKNOWN00000000:qgk2+6Sv9/oM7G3qLEjTH1a1l1g=")), "InvalidAccessKeyId", 403);
    assertRejected(() -> verifier.verify(get("/awsexamplebucket1/photos/puppy.jpg", "", "AWS nocolon")),
        "AuthorizationHeaderMalformed", 400);
    assertRejected(() -> verifier.verify(get("/awsexamplebucket1/photos/puppy.jpg", "", "AWS AKIAIOSFODNN7EXAMPLE:")),
        "AuthorizationHeaderMalformed", 400);
    SigV4Verifier anHourLater = new SigV4Verifier(AwsExamples.store(),
        Clock.fixed(Instant.parse("2007-03-27T20:36:42Z"), ZoneOffset.UTC));
    assertRejected(() -> anHourLater.verify(get("/awsexamplebucket1/photos/puppy.jpg", "",
        "AWS AKIAIOSFODNN7EXAMPLE:qgk2+6Sv9/oM7G3qLEjTH1a1l1g=")), "RequestTimeTooSkewed", 403);
    SignedRequest noDate = new SignedRequest("GET", "/awsexamplebucket1/photos/puppy.jpg", "",
        AwsExamples.headers("Host", "h", "Authorization", "AWS AKIAIOSFODNN7EXAMPLE:qgk2+6Sv9/oM7G3qLEjTH1a1l1g="));
    assertRejected(() -> verifier.verify(noDate), "AccessDenied", 403);
    assertRejected(() -> verifier.verify(get("/b/k", "AWSAccessKeyId=AKIAIOSFODNN7EXAMPLE&Signature=x&Expires=1",
        "AWS AKIAIOSFODNN7EXAMPLE:qgk2+6Sv9/oM7G3qLEjTH1a1l1g=")), "InvalidArgument", 400);
  }

  @Test
  void stringToSign_withXAmzDate_leavesTheDateLineEmpty_andSignsTheAmzDateHeader() {
    HttpHeaders h = AwsExamples.headers("Host", "h", "x-amz-date", DATE, "Date", "ignored");
    String sts = SigV2Verifier.stringToSign(new SignedRequest("DELETE", "/b/k", "", h), "",
        QueryParameter.parse(""));

    assertThat(sts).isEqualTo("DELETE\n\n\n\nx-amz-date:" + DATE + "\n/b/k");
  }

  @Test
  void signature_reusesOneMacPerThread_andStaysCorrect_withManyThreadsAndKeysInterleaved() throws Exception {
    // Reference values from a fresh Mac each, as before the reuse; then 8 threads, each alternating two keys.
    String[] keys = {"k-one", "another secret", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"};
    String[] texts = {"GET\n\n\n" + DATE + "\n/b/k", "PUT\n1B2M2Y8AsgTpgAmY7PhCfg==\ntext/plain\n\n/b/x?acl"};
    java.util.Map<String, String> expected = new java.util.HashMap<>();
    for (String key : keys) {
      for (String text : texts) {
        javax.crypto.Mac fresh = javax.crypto.Mac.getInstance("HmacSHA1");
        fresh.init(new javax.crypto.spec.SecretKeySpec(key.getBytes(java.nio.charset.StandardCharsets.UTF_8),
            "HmacSHA1"));
        expected.put(key + "|" + text, java.util.Base64.getEncoder().encodeToString(
            fresh.doFinal(text.getBytes(java.nio.charset.StandardCharsets.UTF_8))));
      }
    }
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(8);
    try {
      java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
      java.util.List<java.util.concurrent.Future<Integer>> results = new java.util.ArrayList<>();
      for (int t = 0; t < 8; t++) {
        int seed = t;
        results.add(pool.submit(() -> {
          start.await();
          int wrong = 0;
          for (int i = 0; i < 2_000; i++) {
            String key = keys[(seed + i) % keys.length];
            String text = texts[(seed * 7 + i) % texts.length];
            if (!SigV2Verifier.signature(key, text).equals(expected.get(key + "|" + text))) {
              wrong++;
            }
          }
          return wrong;
        }));
      }
      start.countDown();
      for (java.util.concurrent.Future<Integer> r : results) {
        assertThat(r.get()).isZero();
      }
    } finally {
      pool.shutdownNow();
    }
    // and the documented example still verifies on this thread after all that
    assertThat(verifier.verify(get("/awsexamplebucket1/photos/puppy.jpg", "",
        "AWS AKIAIOSFODNN7EXAMPLE:qgk2+6Sv9/oM7G3qLEjTH1a1l1g=")).accessKey()).isEqualTo(AwsExamples.ACCESS_KEY);
  }

  private static SignedRequest get(String path, String rawQuery, String authorization) {
    return new SignedRequest("GET", path, rawQuery, AwsExamples.headers("Host", "h", "Date", DATE, "Authorization",
        authorization));
  }

  private static SignedRequest presigned(String rawQuery) {
    return new SignedRequest("GET", "/b/k%20x.txt", "response-content-type=text%2Fplain&" + rawQuery,
        AwsExamples.headers("Host", "h"));
  }

  private static SignedRequest with(SignedRequest r, String name, String value) {
    HttpHeaders h = r.headers().copy();
    h.set(name, value);
    return new SignedRequest(r.method(), r.rawPath(), r.rawQuery(), h);
  }
}
