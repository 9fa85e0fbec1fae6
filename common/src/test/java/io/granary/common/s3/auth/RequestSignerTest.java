package io.granary.common.s3.auth;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.HttpHeaders;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What {@link RequestSigner} signs, the proxy's verifier accepts; a change to any signed part does not pass. */
class RequestSignerTest {
  private final RequestSigner signer = new RequestSigner(AwsExamples.ACCESS_KEY, AwsExamples.SECRET_KEY);

  @Test
  void aSignedRequest_verifies_withAnEncodedPathAndQuery() {
    SignedRequest r = signed("DELETE", "/v1/objects/b/a%20b/%C3%BC", "provider=aws&prefix=x%2Fy");

    Authentication a = AwsExamples.verifier().verify(r);

    assertThat(a.accessKey()).isEqualTo(AwsExamples.ACCESS_KEY);
    assertThat(a.payloadMode()).isEqualTo(PayloadMode.UNSIGNED);
  }

  @Test
  void anotherPathQueryOrMethod_doesNotVerify() {
    SignedRequest r = signed("GET", "/v1/buckets/b", "");
    for (SignedRequest changed : new SignedRequest[] {
        new SignedRequest("GET", "/v1/buckets/c", "", r.headers()),
        new SignedRequest("GET", "/v1/buckets/b", "force=true", r.headers()),
        new SignedRequest("DELETE", "/v1/buckets/b", "", r.headers())}) {
      SigV4VerifierTest.assertRejected(() -> AwsExamples.verifier().verify(changed), "SignatureDoesNotMatch", 403);
    }
  }

  private SignedRequest signed(String method, String path, String query) {
    Map<String, String> add = signer.sign(method, "127.0.0.1:51080", path, query, AwsExamples.TIME);
    HttpHeaders h = AwsExamples.headers("Host", "127.0.0.1:51080");
    add.forEach(h::set);
    return new SignedRequest(method, path, query, h);
  }
}
