package io.granary.common.s3.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.granary.common.error.ApiException;
import io.granary.common.error.BadRequestException;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import java.util.function.UnaryOperator;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every refusal of {@link SigV4Verifier}, with its S3 code and status, mostly by altering the AWS examples. */
class SigV4VerifierTest {
  private static final String GET_OBJECT_SIGNATURE =
      "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41";
  private final SigV4Verifier verifier = AwsExamples.verifier();

  // ---------------------------------------------------------------- which mechanism

  @Test
  void verify_noAuthentication_isAccessDenied() {
    SignedRequest r = new SignedRequest("GET", "/test.txt", "", AwsExamples.headers("Host", "h"));

    assertThat(SigV4Verifier.isSigned(r)).isFalse();
    assertRejected(() -> verifier.verify(r), "AccessDenied", 403);
  }

  @Test
  void isSigned_headerPresignAndV2Query_areSigned() {
    assertThat(SigV4Verifier.isSigned(AwsExamples.getObject())).isTrue();
    assertThat(SigV4Verifier.isSigned(AwsExamples.presignedGet())).isTrue();
    assertThat(SigV4Verifier.isSigned(query("/k", "X-Amz-Credential=x"))).isTrue();
    assertThat(SigV4Verifier.isSigned(query("/k", "a=1&X-Amz-Signature=x"))).isTrue();
    assertThat(SigV4Verifier.isSigned(query("/k", "AWSAccessKeyId=AK&Expires=1&Signature=x"))).isTrue();
    assertThat(SigV4Verifier.isSigned(query("/k", "prefix=X-Amz-Signature&list-type=2"))).isFalse();
  }

  @Test
  void signedRequestOf_nettyRequest_splitsAtFirstQuestionMark() {
    DefaultFullHttpRequest req = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/b/k%3F?a=b?c");
    try {
      SignedRequest r = SignedRequest.of(req);

      assertThat(r.method()).isEqualTo("GET");
      assertThat(r.rawPath()).isEqualTo("/b/k%3F");
      assertThat(r.rawQuery()).isEqualTo("a=b?c");
      assertThat(SignedRequest.of(new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.PUT, "/x"))
          .rawQuery()).isEmpty();
    } finally {
      req.release();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"AWS4-ECDSA-P256-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/s3/aws4_request, "
      + "SignedHeaders=host, Signature=abcd", "Bearer token", "Basic dXNlcjpwYXNz"})
  void verify_otherAuthorizationScheme_isInvalidRequest(String value) {
    assertRejected(() -> verifier.verify(withHeader(AwsExamples.getObject(), "Authorization", value)),
        "InvalidRequest", 400);
  }

  @Test
  void verify_headerAndPresignTogether_isInvalidArgument() {
    SignedRequest both = withHeader(AwsExamples.presignedGet(), "Authorization",
        AwsExamples.getObject().headers().get("Authorization"));

    assertRejected(() -> verifier.verify(both), "InvalidArgument", 400);
  }

  // ---------------------------------------------------------------- header auth

  @ParameterizedTest
  @ValueSource(strings = {
      "AWS4-HMAC-SHA256",
      "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=host",
      "AWS4-HMAC-SHA256 SignedHeaders=host,Signature=" + GET_OBJECT_SIGNATURE,
      "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/us-east-1/s3/aws4_request,SignedHeaders=host,Signature="
          + GET_OBJECT_SIGNATURE,
      "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws5_request,SignedHeaders=host,"
          + "Signature=" + GET_OBJECT_SIGNATURE,
      "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/2013-5-24/us-east-1/s3/aws4_request,SignedHeaders=host,"
          + "Signature=" + GET_OBJECT_SIGNATURE,
      "AWS4-HMAC-SHA256 Credential=/20130524/us-east-1/s3/aws4_request,SignedHeaders=host,Signature="
          + GET_OBJECT_SIGNATURE,
      "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524//s3/aws4_request,SignedHeaders=host,Signature="
          + GET_OBJECT_SIGNATURE,
      "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=host,"
          + "Signature=f0e8",
      "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=Host,"
          + "Signature=" + GET_OBJECT_SIGNATURE,
      "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=,"
          + "Signature=" + GET_OBJECT_SIGNATURE,
      "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=host,"
          + "Signature=" + GET_OBJECT_SIGNATURE + ",Extra=1",
      "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=host,"
          + "SignedHeaders=host,Signature=" + GET_OBJECT_SIGNATURE,
      "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=host;"
          + "x-amz-date,Signature=" + GET_OBJECT_SIGNATURE + ",nonsense"})
  void verify_malformedAuthorization_isAuthorizationHeaderMalformed(String value) {
    assertRejected(() -> verifier.verify(withHeader(AwsExamples.getObject(), "Authorization", value)),
        "AuthorizationHeaderMalformed", 400);
  }

  @Test
  void verify_twoAuthorizationHeaders_isMalformed() {
    SignedRequest r = AwsExamples.getObject();
    r.headers().add("Authorization", r.headers().get("Authorization"));

    assertRejected(() -> verifier.verify(r), "AuthorizationHeaderMalformed", 400);
  }

  @Test
  void verify_unknownAccessKey_isInvalidAccessKeyId() {
    SignedRequest r = withHeader(AwsExamples.getObject(), "Authorization", AwsExamples.getObject().headers()
        .get("Authorization").replace("AKIAIOSFODNN7EXAMPLE", "AKIANOBODYKNOWS0000"));

    assertRejected(() -> verifier.verify(r), "InvalidAccessKeyId", 403);
  }

  @Test
  void verify_wrongSignature_isSignatureDoesNotMatchWithoutLeakingIt() {
    SignedRequest r = withHeader(AwsExamples.getObject(), "Authorization", AwsExamples.authorization(
        "host;range;x-amz-content-sha256;x-amz-date", GET_OBJECT_SIGNATURE.replace("f0e8", "f0e9")));

    assertRejected(() -> verifier.verify(r), "SignatureDoesNotMatch", 403);
    assertThatThrownBy(() -> verifier.verify(r))
        .hasMessageNotContaining(GET_OBJECT_SIGNATURE)
        .hasMessageNotContaining("f0e9")
        .hasMessageNotContaining(AwsExamples.SECRET_KEY);
  }

  @Test
  void verify_wrongSecret_isSignatureDoesNotMatch() {
    SigV4Verifier other = new SigV4Verifier(CredentialStore.of(List.of(
        new Credentials(AwsExamples.ACCESS_KEY, "another-secret"))), AwsExamples.CLOCK);

    assertRejected(() -> other.verify(AwsExamples.getObject()), "SignatureDoesNotMatch", 403);
  }

  @Test
  void verify_upperCaseSignatureHex_passes() {
    SignedRequest r = withHeader(AwsExamples.getObject(), "Authorization", AwsExamples.authorization(
        "host;range;x-amz-content-sha256;x-amz-date", GET_OBJECT_SIGNATURE.toUpperCase()));

    assertThat(verifier.verify(r).seedSignature()).isEqualTo(GET_OBJECT_SIGNATURE);
  }

  @Test
  void verify_spacesAfterCommasInAuthorization_passes() {
    SignedRequest r = withHeader(AwsExamples.getObject(), "Authorization", "AWS4-HMAC-SHA256 "
        + "Credential=" + AwsExamples.CREDENTIAL + ",  SignedHeaders=host;range;x-amz-content-sha256;x-amz-date , "
        + "Signature=" + GET_OBJECT_SIGNATURE);

    assertThat(verifier.verify(r).accessKey()).isEqualTo(AwsExamples.ACCESS_KEY);
  }

  @Test
  void verify_clockSkewBeyondFifteenMinutes_isRequestTimeTooSkewed() {
    Duration skew = Duration.ofMinutes(15).plusSeconds(1);
    for (Duration d : new Duration[] {skew, skew.negated()}) {
      SigV4Verifier v = new SigV4Verifier(AwsExamples.store(),
          Clock.fixed(AwsExamples.TIME.plus(d), ZoneOffset.UTC));
      assertRejected(() -> v.verify(AwsExamples.getObject()), "RequestTimeTooSkewed", 403);
    }
  }

  @Test
  void verify_clockSkewOfExactlyFifteenMinutes_passes() {
    for (Duration d : new Duration[] {Duration.ofMinutes(15), Duration.ofMinutes(-15)}) {
      SigV4Verifier v = new SigV4Verifier(AwsExamples.store(),
          Clock.fixed(AwsExamples.TIME.plus(d), ZoneOffset.UTC));
      assertThat(v.verify(AwsExamples.getObject()).accessKey()).isEqualTo(AwsExamples.ACCESS_KEY);
    }
  }

  @Test
  void verify_customMaxSkew_isHonoured() {
    SigV4Verifier strict = new SigV4Verifier(AwsExamples.store(),
        Clock.fixed(AwsExamples.TIME.plusSeconds(61), ZoneOffset.UTC), Duration.ofMinutes(1));

    assertRejected(() -> strict.verify(AwsExamples.getObject()), "RequestTimeTooSkewed", 403);
  }

  @Test
  void verify_missingContentSha256_isInvalidRequest() {
    SignedRequest r = AwsExamples.getObject();
    r.headers().remove("x-amz-content-sha256");

    assertRejected(() -> verifier.verify(r), "InvalidRequest", 400);
  }

  @Test
  void verify_unknownContentSha256Value_isInvalidArgument() {
    assertRejected(() -> verifier.verify(withHeader(AwsExamples.getObject(), "x-amz-content-sha256",
        "STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD")), "InvalidArgument", 400);
    assertRejected(() -> verifier.verify(withHeader(AwsExamples.getObject(), "x-amz-content-sha256", "abc")),
        "InvalidArgument", 400);
  }

  @Test
  void verify_missingOrInvalidDate_isAccessDenied() {
    SignedRequest none = AwsExamples.getObject();
    none.headers().remove("x-amz-date");
    assertRejected(() -> verifier.verify(none), "AccessDenied", 403);
    assertRejected(() -> verifier.verify(withHeader(AwsExamples.getObject(), "x-amz-date", "2013-05-24T00:00:00Z")),
        "AccessDenied", 403);
    assertRejected(() -> verifier.verify(withHeader(AwsExamples.getObject(), "x-amz-date", "20130532T000000Z")),
        "AccessDenied", 403);
  }

  @Test
  void verify_scopeDateNotRequestDate_isAuthorizationHeaderMalformed() {
    SignedRequest r = withHeader(AwsExamples.getObject(), "Authorization", AwsExamples.getObject().headers()
        .get("Authorization").replace("/20130524/", "/20130523/"));

    assertRejected(() -> verifier.verify(r), "AuthorizationHeaderMalformed", 400);
    assertThatThrownBy(() -> verifier.verify(r)).hasMessageContaining("credential date");
  }

  @Test
  void verify_hostNotSigned_isAuthorizationHeaderMalformed() {
    SignedRequest r = withHeader(AwsExamples.getObject(), "Authorization",
        AwsExamples.authorization("range;x-amz-content-sha256;x-amz-date", GET_OBJECT_SIGNATURE));

    assertRejected(() -> verifier.verify(r), "AuthorizationHeaderMalformed", 400);
  }

  @Test
  void verify_onlyDateHeader_signsItsTimeInBasicForm() {
    // Independent of the verifier's code path: the canonical request and string to sign are spelled out here.
    String canonical = "GET\n/test.txt\n\ndate:Fri, 24 May 2013 00:00:00 GMT\nhost:examplebucket.s3.amazonaws.com\n"
        + "x-amz-content-sha256:UNSIGNED-PAYLOAD\n\ndate;host;x-amz-content-sha256\nUNSIGNED-PAYLOAD";
    String stringToSign = "AWS4-HMAC-SHA256\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n"
        + Sha256.hex(canonical);
    String signature = Sha256.HEX.formatHex(SigningKey.derive(AwsExamples.SECRET_KEY, "20130524", "us-east-1", "s3")
        .sign(stringToSign));
    SignedRequest r = new SignedRequest("GET", "/test.txt", "", AwsExamples.headers(
        "Host", "examplebucket.s3.amazonaws.com",
        "Date", "Fri, 24 May 2013 00:00:00 GMT",
        "x-amz-content-sha256", "UNSIGNED-PAYLOAD",
        "Authorization", AwsExamples.authorization("date;host;x-amz-content-sha256", signature)));

    Authentication a = verifier.verify(r);

    assertThat(a.payloadMode()).isEqualTo(PayloadMode.UNSIGNED);
    assertThat(a.chunkSigner().amzDate()).isEqualTo("20130524T000000Z");
  }

  // ---------------------------------------------------------------- what the signature covers

  @Test
  void verify_tamperedSignedHeader_isSignatureDoesNotMatch() {
    assertRejected(() -> verifier.verify(withHeader(AwsExamples.getObject(), "Range", "bytes=0-99")),
        "SignatureDoesNotMatch", 403);
    assertRejected(() -> verifier.verify(withHeader(AwsExamples.getObject(), "Host", "evil.example")),
        "SignatureDoesNotMatch", 403);
    assertRejected(() -> verifier.verify(withHeader(AwsExamples.putObject(), "x-amz-storage-class", "STANDARD")),
        "SignatureDoesNotMatch", 403);
    assertRejected(() -> verifier.verify(withHeader(AwsExamples.putObject(), "x-amz-content-sha256",
        AwsExamples.EMPTY_SHA256)), "SignatureDoesNotMatch", 403);
  }

  @Test
  void verify_signedHeaderSentTwice_isSignatureDoesNotMatch() {
    SignedRequest r = AwsExamples.getObject();
    r.headers().add("Range", "bytes=10-19");

    assertRejected(() -> verifier.verify(r), "SignatureDoesNotMatch", 403);
  }

  @Test
  void verify_tamperedPathQueryOrMethod_isSignatureDoesNotMatch() {
    SignedRequest get = AwsExamples.getObject();
    assertRejected(() -> verifier.verify(new SignedRequest("GET", "/test.txT", "", get.headers())),
        "SignatureDoesNotMatch", 403);
    assertRejected(() -> verifier.verify(new SignedRequest("GET", "/test.txt/", "", get.headers())),
        "SignatureDoesNotMatch", 403);
    assertRejected(() -> verifier.verify(new SignedRequest("GET", "/./test.txt", "", get.headers())),
        "SignatureDoesNotMatch", 403);
    assertRejected(() -> verifier.verify(new SignedRequest("GET", "/test.txt", "versionId=1", get.headers())),
        "SignatureDoesNotMatch", 403);
    assertRejected(() -> verifier.verify(new SignedRequest("DELETE", "/test.txt", "", get.headers())),
        "SignatureDoesNotMatch", 403);
    SignedRequest list = AwsExamples.listObjects();
    assertRejected(() -> verifier.verify(new SignedRequest("GET", "/", "max-keys=2&prefix=K", list.headers())),
        "SignatureDoesNotMatch", 403);
    assertRejected(() -> verifier.verify(new SignedRequest("GET", "/", "max-keys=2&prefix=J&x=", list.headers())),
        "SignatureDoesNotMatch", 403);
    assertRejected(() -> verifier.verify(new SignedRequest("GET", "/", "max-keys=2&prefix=J+", list.headers())),
        "SignatureDoesNotMatch", 403);
  }

  @Test
  void verify_sameRequestEncodedDifferently_passes() {
    SignedRequest put = AwsExamples.putObject();
    SignedRequest list = AwsExamples.listObjects();
    SignedRequest get = AwsExamples.getObject();

    // '$' unencoded, and over-encoded unreserved characters, canonicalize to what the client signed.
    assertThat(verifier.verify(new SignedRequest("PUT", "/test$file.text", "", put.headers()))).isNotNull();
    assertThat(verifier.verify(new SignedRequest("PUT", "/test%24file%2etext", "", put.headers()))).isNotNull();
    assertThat(verifier.verify(new SignedRequest("GET", "/%74est.txt", "", get.headers()))).isNotNull();
    // Query order and encoding do not matter either.
    assertThat(verifier.verify(new SignedRequest("GET", "/", "prefix=%4A&max-keys=2", list.headers()))).isNotNull();
  }

  @Test
  void verify_unsignedExtraHeader_doesNotMatter() {
    SignedRequest r = AwsExamples.getObject();
    r.headers().add("User-Agent", "curl/8.0").add("X-Forwarded-For", "10.0.0.1").add("Connection", "keep-alive");

    assertThat(verifier.verify(r).accessKey()).isEqualTo(AwsExamples.ACCESS_KEY);
  }

  @Test
  void verify_unsignedAmzHeader_isAccessDenied() {
    SignedRequest r = AwsExamples.getObject();
    r.headers().add("x-amz-meta-injected", "yes");

    assertRejected(() -> verifier.verify(r), "AccessDenied", 403);
    assertThatThrownBy(() -> verifier.verify(r)).hasMessageContaining("x-amz-meta-injected");
  }

  @Test
  void verify_malformedPercentEscapeInPath_isInvalidUri() {
    SignedRequest r = new SignedRequest("GET", "/test%zz.txt", "", AwsExamples.getObject().headers());

    assertThatThrownBy(() -> verifier.verify(r))
        .isInstanceOfSatisfying(BadRequestException.class, e -> assertThat(e.code()).isEqualTo("InvalidURI"));
  }

  // ---------------------------------------------------------------- presigned URLs

  @ParameterizedTest
  @ValueSource(strings = {"0", "604801", "-1", "1.5", "abc", "", "99999999999"})
  void verify_presignedExpiresOutOfRange_isAuthorizationQueryParametersError(String expires) {
    SignedRequest r = presignedWith(q -> q.replace("X-Amz-Expires=86400", "X-Amz-Expires=" + expires));

    assertRejected(() -> verifier.verify(r), "AuthorizationQueryParametersError", 400);
  }

  @Test
  void verify_presignedExpiresAtBounds_isNotAParameterError() {
    for (String expires : new String[] {"1", "604800"}) {
      SignedRequest r = presignedWith(q -> q.replace("X-Amz-Expires=86400", "X-Amz-Expires=" + expires));
      // Well-formed, so it gets as far as the signature, which covered 86400.
      assertRejected(() -> verifier.verify(r), "SignatureDoesNotMatch", 403);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"X-Amz-Date=20130524T000000Z&", "X-Amz-SignedHeaders=host&", "X-Amz-Expires=86400&",
      "X-Amz-Algorithm=AWS4-HMAC-SHA256&", "X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2F"
      + "aws4_request&"})
  void verify_presignedMissingParameter_isAuthorizationQueryParametersError(String removed) {
    SignedRequest r = presignedWith(q -> q.replace(removed, ""));

    assertRejected(() -> verifier.verify(r), "AuthorizationQueryParametersError", 400);
  }

  @Test
  void verify_presignedMalformedParameters_areAuthorizationQueryParametersError() {
    for (UnaryOperator<String> change : List.<UnaryOperator<String>>of(
        q -> q.replace("AWS4-HMAC-SHA256", "AWS4-HMAC-SHA1"),
        q -> q.replace("X-Amz-Date=20130524T000000Z", "X-Amz-Date=20130524"),
        q -> q.replace("%2Faws4_request", "%2Faws3_request"),
        q -> q.replace("X-Amz-SignedHeaders=host", "X-Amz-SignedHeaders=range"),
        q -> q.replace("X-Amz-Signature=aeeed9bb", "X-Amz-Signature=zeeed9bb"),
        q -> q + "&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404",
        q -> q + "&X-Amz-Content-Sha256=STREAMING-AWS4-HMAC-SHA256-PAYLOAD")) {
      SignedRequest r = presignedWith(change);
      assertRejected(() -> verifier.verify(r), "AuthorizationQueryParametersError", 400);
    }
  }

  @Test
  void verify_presignedScopeDateNotXAmzDate_isAuthorizationQueryParametersError() {
    SignedRequest r = presignedWith(q -> q.replace("%2F20130524%2F", "%2F20130525%2F"));

    assertRejected(() -> verifier.verify(r), "AuthorizationQueryParametersError", 400);
  }

  @Test
  void verify_presignedUnknownAccessKey_isInvalidAccessKeyId() {
    SignedRequest r = presignedWith(q -> q.replace("AKIAIOSFODNN7EXAMPLE", "AKIAUNKNOWN"));

    assertRejected(() -> verifier.verify(r), "InvalidAccessKeyId", 403);
  }

  @Test
  void verify_presignedTampered_isSignatureDoesNotMatch() {
    SignedRequest p = AwsExamples.presignedGet();
    assertRejected(() -> verifier.verify(new SignedRequest("GET", "/other.txt", p.rawQuery(), p.headers())),
        "SignatureDoesNotMatch", 403);
    assertRejected(() -> verifier.verify(new SignedRequest("PUT", "/test.txt", p.rawQuery(), p.headers())),
        "SignatureDoesNotMatch", 403);
    assertRejected(() -> verifier.verify(new SignedRequest("GET", "/test.txt", p.rawQuery() + "&acl", p.headers())),
        "SignatureDoesNotMatch", 403);
    assertRejected(() -> verifier.verify(withHeader(p, "Host", "other.s3.amazonaws.com")),
        "SignatureDoesNotMatch", 403);
    assertRejected(() -> verifier.verify(presignedWith(q -> q.replace("aeeed9bb", "aeeed9bc"))),
        "SignatureDoesNotMatch", 403);
  }

  @Test
  void verify_presignedNotYetValid_isAccessDenied() {
    SigV4Verifier early = new SigV4Verifier(AwsExamples.store(),
        Clock.fixed(AwsExamples.TIME.minus(Duration.ofMinutes(16)), ZoneOffset.UTC));

    assertRejected(() -> early.verify(AwsExamples.presignedGet()), "AccessDenied", 403);
  }

  @Test
  void verify_presignedWithUnsignedAmzHeader_isAccessDenied() {
    SignedRequest r = withHeader(AwsExamples.presignedGet(), "x-amz-acl", "public-read");

    assertRejected(() -> verifier.verify(r), "AccessDenied", 403);
  }

  @Test
  void verify_presignedIgnoresContentSha256Header() {
    SignedRequest r = withHeader(AwsExamples.presignedGet(), "x-amz-content-sha256", "UNSIGNED-PAYLOAD");

    assertThat(verifier.verify(r).payloadMode()).isEqualTo(PayloadMode.UNSIGNED);
  }

  // ---------------------------------------------------------------- helpers

  private static SignedRequest query(String path, String rawQuery) {
    return new SignedRequest("GET", path, rawQuery, AwsExamples.headers("Host", "h"));
  }

  private static SignedRequest withHeader(SignedRequest r, String name, String value) {
    HttpHeaders h = r.headers().copy();
    h.set(name, value);
    return new SignedRequest(r.method(), r.rawPath(), r.rawQuery(), h);
  }

  private static SignedRequest presignedWith(UnaryOperator<String> change) {
    SignedRequest p = AwsExamples.presignedGet();
    return new SignedRequest(p.method(), p.rawPath(), change.apply(p.rawQuery()), p.headers());
  }

  static void assertRejected(ThrowingCallable call, String code, int status) {
    assertThatThrownBy(call).isInstanceOfSatisfying(ApiException.class, e -> {
      assertThat(e.code()).as("code of: %s", e.getMessage()).isEqualTo(code);
      assertThat(e.status().code()).as("status of: %s", e.getMessage()).isEqualTo(status);
    });
  }
}
