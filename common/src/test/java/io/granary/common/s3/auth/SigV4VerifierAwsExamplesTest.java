package io.granary.common.s3.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** The signatures published in the Amazon S3 API reference verify, with the clock at the examples' time. */
class SigV4VerifierAwsExamplesTest {
  private final SigV4Verifier verifier = AwsExamples.verifier();

  @Test
  void verify_awsGetObjectExample_isSignedHashOfEmptyBody() {
    Authentication a = verifier.verify(AwsExamples.getObject());

    assertThat(a.accessKey()).isEqualTo(AwsExamples.ACCESS_KEY);
    assertThat(a.payloadMode()).isEqualTo(PayloadMode.SIGNED_HASH);
    assertThat(a.payloadSha256()).isEqualTo(AwsExamples.EMPTY_SHA256);
    assertThat(a.seedSignature()).isEqualTo("f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
    assertThat(a.chunkSigner().scope()).isEqualTo("20130524/us-east-1/s3/aws4_request");
  }

  @Test
  void verify_awsPutObjectExample_signsEncodedDollarAndDateHeader() {
    Authentication a = verifier.verify(AwsExamples.putObject());

    assertThat(a.payloadMode()).isEqualTo(PayloadMode.SIGNED_HASH);
    assertThat(a.payloadSha256()).isEqualTo("44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
  }

  @Test
  void verify_awsGetBucketLifecycleExample_signsValuelessParameterWithEquals() {
    assertThat(verifier.verify(AwsExamples.getBucketLifecycle()).accessKey()).isEqualTo(AwsExamples.ACCESS_KEY);
  }

  @Test
  void verify_awsListObjectsExample_sortsQuery() {
    assertThat(verifier.verify(AwsExamples.listObjects()).accessKey()).isEqualTo(AwsExamples.ACCESS_KEY);
  }

  @Test
  void verify_awsPresignedExample_isUnsignedPayload() {
    Authentication a = verifier.verify(AwsExamples.presignedGet());

    assertThat(a.payloadMode()).isEqualTo(PayloadMode.UNSIGNED);
    assertThat(a.payloadSha256()).isNull();
    assertThat(a.seedSignature()).isEqualTo("aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404");
  }

  @Test
  void verify_awsPresignedExampleAtLastValidSecond_passes() {
    SigV4Verifier late = new SigV4Verifier(AwsExamples.store(),
        Clock.fixed(AwsExamples.TIME.plusSeconds(86400), ZoneOffset.UTC));

    assertThat(late.verify(AwsExamples.presignedGet()).accessKey()).isEqualTo(AwsExamples.ACCESS_KEY);
  }

  @Test
  void verify_awsPresignedExampleOneSecondAfterExpiry_isAccessDenied() {
    SigV4Verifier late = new SigV4Verifier(AwsExamples.store(),
        Clock.fixed(AwsExamples.TIME.plusSeconds(86401), ZoneOffset.UTC));

    assertThatThrownBy(() -> late.verify(AwsExamples.presignedGet()))
        .isInstanceOfSatisfying(S3AuthException.class, e -> {
          assertThat(e.code()).isEqualTo("AccessDenied");
          assertThat(e.status().code()).isEqualTo(403);
          assertThat(e.getMessage()).contains("Request has expired");
        });
  }

  @Test
  void verify_awsChunkedUploadExample_isStreamingSignedWithSeedSignature() {
    Authentication a = verifier.verify(AwsExamples.chunkedPut());

    assertThat(a.payloadMode()).isEqualTo(PayloadMode.STREAMING_SIGNED);
    assertThat(a.seedSignature()).isEqualTo(AwsExamples.CHUNKED_SEED);
    assertThat(a.chunkSigner().amzDate()).isEqualTo("20130524T000000Z");
  }
}
