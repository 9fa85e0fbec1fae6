package io.granary.common.s3.auth;

import static io.granary.common.s3.auth.SigV4VerifierTest.assertRejected;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;

/**
 * The verifier keeps derived signing keys by access key and scope: a key cached by one good request must not let any
 * other request through that a fresh verifier would refuse (wrong secret, other day, expired URL).
 */
class SigV4VerifierKeyCacheTest {
  private final SettableClock clock = new SettableClock(SdkSigning.TIME);
  private final SigV4Verifier verifier = new SigV4Verifier(SdkSigning.store(), clock);

  @Test
  void wrongSecret_afterTheKeyIsCached_isStillSignatureDoesNotMatch() {
    assertThat(verifier.verify(presigned("k", Duration.ofMinutes(5), SdkSigning.IDENTITY, SdkSigning.TIME))
        .accessKey()).isEqualTo(SdkSigning.ACCESS_KEY);

    AwsCredentialsIdentity wrong = AwsCredentialsIdentity.create(SdkSigning.ACCESS_KEY, "not-the-secret");
    assertRejected(() -> verifier.verify(presigned("k", Duration.ofMinutes(5), wrong, SdkSigning.TIME)),
        "SignatureDoesNotMatch", 403);
  }

  @Test
  void expiredUrl_afterItWasAccepted_isAccessDenied() {
    SignedRequest r = presigned("k", Duration.ofMinutes(5), SdkSigning.IDENTITY, SdkSigning.TIME);
    verifier.verify(r);
    verifier.verify(r); // served from the cached key

    clock.set(SdkSigning.TIME.plus(Duration.ofMinutes(5)).plusSeconds(1));
    assertRejected(() -> verifier.verify(r), "AccessDenied", 403);
  }

  @Test
  void nextDay_usesTheNextDaysKey_andRefusesAScopeOfTheDayBefore() {
    verifier.verify(presigned("k", Duration.ofMinutes(5), SdkSigning.IDENTITY, SdkSigning.TIME));

    Instant tomorrow = SdkSigning.TIME.plus(Duration.ofDays(1));
    clock.set(tomorrow);
    SignedRequest next = presigned("k", Duration.ofMinutes(5), SdkSigning.IDENTITY, tomorrow);
    assertThat(verifier.verify(next).accessKey()).isEqualTo(SdkSigning.ACCESS_KEY);

    // tomorrow's request time under yesterday's scope: refused before any key is looked at
    SignedRequest staleScope = new SignedRequest(next.method(), next.rawPath(),
        next.rawQuery().replace("%2F20240602%2F", "%2F20240601%2F"), next.headers());
    assertRejected(() -> verifier.verify(staleScope), "AuthorizationQueryParametersError", 400);
    // a URL of yesterday, long valid, still verifies with yesterday's key
    clock.set(SdkSigning.TIME.plus(Duration.ofHours(2)));
    assertThat(verifier.verify(presigned("k", Duration.ofDays(1), SdkSigning.IDENTITY, SdkSigning.TIME))
        .accessKey()).isEqualTo(SdkSigning.ACCESS_KEY);
  }

  @Test
  void wrongSecretFirst_doesNotPoisonTheCache() {
    AwsCredentialsIdentity wrong = AwsCredentialsIdentity.create(SdkSigning.ACCESS_KEY, "not-the-secret");
    assertRejected(() -> verifier.verify(presigned("k", Duration.ofMinutes(5), wrong, SdkSigning.TIME)),
        "SignatureDoesNotMatch", 403);

    assertThat(verifier.verify(presigned("k", Duration.ofMinutes(5), SdkSigning.IDENTITY, SdkSigning.TIME))
        .accessKey()).isEqualTo(SdkSigning.ACCESS_KEY);
  }

  private static SignedRequest presigned(String key, Duration expires, AwsCredentialsIdentity identity,
      Instant signedAt) {
    return SdkSigning.presigned(SdkSigning.request(SdkHttpMethod.GET, "bucket", key), expires, identity,
        Clock.fixed(signedAt, ZoneOffset.UTC)).request();
  }

  /** A UTC clock the test sets (common's tests cannot use testkit's, which depends on common). */
  private static final class SettableClock extends Clock {
    private volatile Instant now;

    SettableClock(Instant start) {
      now = start;
    }

    void set(Instant t) {
      now = t;
    }

    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }
  }
}
