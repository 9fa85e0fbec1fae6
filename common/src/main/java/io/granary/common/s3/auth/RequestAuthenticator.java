package io.granary.common.s3.auth;

import io.granary.common.http.HttpExchange;
import java.time.Clock;

/**
 * Decides who sent a request to the proxy: a verified SigV4 signature (header or presigned URL), or nobody. An
 * unsigned request is served only when anonymous access was explicitly enabled; otherwise it is 403 AccessDenied.
 * A signed request is always verified, even when anonymous access is on.
 */
public final class RequestAuthenticator {
  private final SigV4Verifier verifier;
  private final boolean anonymous;

  public RequestAuthenticator(CredentialStore credentials, boolean anonymous, Clock clock) {
    this.verifier = new SigV4Verifier(credentials, clock);
    this.anonymous = anonymous;
  }

  /** The verified authentication, or null for an anonymous request when anonymous access is on. */
  public Authentication authenticate(HttpExchange ex) {
    Authentication auth = verifyIfSigned(ex);
    if (auth != null || anonymous) {
      return auth;
    }
    throw unsigned();
  }

  /**
   * The verified authentication of a signed request (a wrong signature throws), or null for an unsigned one
   * whatever the anonymous setting: for the S3 API, which lets unsigned requests read what is public-read.
   */
  public Authentication verifyIfSigned(HttpExchange ex) {
    SignedRequest r = SignedRequest.of(ex.request());
    return SigV4Verifier.isSigned(r) ? verifier.verify(r) : null;
  }

  /** 403 AccessDenied for an unsigned request that anonymous access does not cover. */
  public static S3AuthException unsigned() {
    return S3AuthException.accessDenied("Access Denied: the request is not signed; sign it with AWS Signature "
        + "Version 4 using this cluster's access key");
  }

  public boolean anonymousAllowed() {
    return anonymous;
  }
}
