package io.granary.common.s3.auth;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Objects;

/**
 * Verifies AWS Signature Version 4 on S3 requests at the proxy: the {@code Authorization} header form and presigned
 * URLs (AWS4-HMAC-SHA256); Signature Version 2, header and presigned, is handed to {@link SigV2Verifier}. Stateless apart from its configuration, so one instance serves every
 * event loop.
 *
 * <p>Checks, in order: the auth parameters are well formed, the access key is known, the request time is valid
 * (within {@code maxSkew} of the clock, or for a presigned URL, not before its date and not past its expiry), the
 * scope's date is the request's date, {@code host} and every {@code x-amz-*} header sent are signed, and finally
 * the signature, compared in constant time.
 */
public final class SigV4Verifier {
  /** How far a request's time may be from ours, as S3 allows. */
  public static final Duration DEFAULT_MAX_SKEW = Duration.ofMinutes(15);
  private static final String X_AMZ_DATE = "x-amz-date";
  private static final String X_AMZ_CONTENT_SHA256 = "x-amz-content-sha256";

  private final CredentialStore credentials;
  private final Clock clock;
  private final Duration maxSkew;
  private final SigV2Verifier v2;
  /**
   * Derived signing keys by access key and scope: a key changes once a day per region and service, and deriving it
   * costs four HMACs, so every request after the first of the day skips them. Bounded: cleared when full.
   */
  private final Map<String, SigningKey> keys = new ConcurrentHashMap<>();
  private static final int MAX_KEYS = 4096;

  public SigV4Verifier(CredentialStore credentials, Clock clock, Duration maxSkew) {
    this.credentials = Objects.requireNonNull(credentials, "credentials");
    this.clock = Objects.requireNonNull(clock, "clock");
    if (maxSkew.isNegative()) {
      throw new IllegalArgumentException("maxSkew must not be negative, got " + maxSkew);
    }
    this.maxSkew = maxSkew;
    this.v2 = new SigV2Verifier(credentials, clock, maxSkew);
  }

  public SigV4Verifier(CredentialStore credentials, Clock clock) {
    this(credentials, clock, DEFAULT_MAX_SKEW);
  }

  /**
   * Whether the request tries to authenticate at all (an Authorization header, or SigV4 or V2 presign query
   * parameters). A request that does not may be served anonymously where policy allows; one that does must pass
   * {@link #verify}.
   */
  public static boolean isSigned(SignedRequest r) {
    return r.headers().contains(HttpHeaderNames.AUTHORIZATION)
        || PresignedParams.present(r.rawQuery()) || SigV2Verifier.isPresigned(r.rawQuery());
  }

  /**
   * Verifies {@code r}'s signature.
   *
   * @throws S3AuthException with the S3 error code of the first check that fails
   * @throws io.granary.common.error.BadRequestException for a path or query that is not valid percent-encoded UTF-8
   */
  public Authentication verify(SignedRequest r) {
    List<String> authorization = r.headers().getAll(HttpHeaderNames.AUTHORIZATION);
    boolean presigned = PresignedParams.present(r.rawQuery());
    if (authorization.size() > 1) {
      throw S3AuthException.headerMalformed("the request has more than one Authorization header");
    }
    if (!authorization.isEmpty() && presigned) {
      throw S3AuthException.invalidArgument("Only one auth mechanism allowed; only the X-Amz-Algorithm query "
          + "parameter or the Authorization header should be specified");
    }
    boolean presignedV2 = SigV2Verifier.isPresigned(r.rawQuery());
    if (!authorization.isEmpty() && presignedV2) {
      throw S3AuthException.invalidArgument("Only one auth mechanism allowed; only the Signature query parameter "
          + "or the Authorization header should be specified");
    }
    if (!authorization.isEmpty()) {
      if (SigV2Verifier.isHeaderForm(authorization.get(0))) {
        return v2.verifyHeader(r, authorization.get(0));
      }
      return verifyHeader(r, AuthorizationHeader.parse(authorization.get(0)));
    }
    if (presigned && presignedV2) {
      throw S3AuthException.invalidArgument("Only one auth mechanism allowed; a presigned URL is signed with "
          + "either Signature Version 4 (X-Amz-*) or Version 2 (AWSAccessKeyId, Expires, Signature)");
    }
    if (presigned) {
      return verifyPresigned(r);
    }
    if (presignedV2) {
      return v2.verifyPresigned(r);
    }
    throw S3AuthException.accessDenied("the request is not signed and anonymous access is not allowed");
  }

  private Authentication verifyHeader(SignedRequest r, AuthorizationHeader auth) {
    CredentialScope cred = auth.credential();
    Credentials secret = lookup(cred.accessKey());

    // x-amz-date wins over Date; with Date, the time is signed in the basic form all the same.
    String amzDate = r.headers().get(X_AMZ_DATE);
    Instant time;
    if (amzDate != null) {
      time = AmzDate.parseBasic(amzDate);
    } else {
      time = AmzDate.parseHttpDate(r.headers().get(HttpHeaderNames.DATE));
      amzDate = time == null ? null : AmzDate.formatBasic(time);
    }
    if (time == null) {
      throw S3AuthException.accessDenied("AWS authentication requires a valid Date or x-amz-date header");
    }
    if (!amzDate.startsWith(cred.date())) {
      throw S3AuthException.headerMalformed("Invalid credential date \"" + cred.date()
          + "\": it must be the date of the request time " + amzDate);
    }
    checkSkew(time);

    String contentSha256 = r.headers().get(X_AMZ_CONTENT_SHA256);
    if (contentSha256 == null) {
      throw S3AuthException.invalidRequest("Missing required header for this request: x-amz-content-sha256");
    }
    PayloadMode mode = PayloadMode.parse(contentSha256);
    if (mode == null) {
      throw S3AuthException.invalidArgument("x-amz-content-sha256 must be UNSIGNED-PAYLOAD, "
          + "STREAMING-AWS4-HMAC-SHA256-PAYLOAD, STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER, "
          + "STREAMING-UNSIGNED-PAYLOAD-TRAILER or the hex SHA-256 of the body");
    }
    if (!auth.signedHeaders().contains("host")) {
      throw S3AuthException.headerMalformed("the host header must be signed (listed in SignedHeaders)");
    }
    requireAmzHeadersSigned(r.headers(), auth.signedHeaders());

    String canonical = CanonicalRequest.build(r, QueryParameter.parse(r.rawQuery()), false, auth.signedHeaders(),
        contentSha256);
    ChunkSigner signer = signer(secret, cred, amzDate);
    String expected = signer.requestSignature(canonical);
    if (!ChunkSigner.sameSignature(expected, auth.signature())) {
      throw S3AuthException.signatureMismatch("request");
    }
    return new Authentication(cred.accessKey(), mode,
        mode == PayloadMode.SIGNED_HASH ? contentSha256.toLowerCase(Locale.ROOT) : null, expected, signer);
  }

  private Authentication verifyPresigned(SignedRequest r) {
    List<QueryParameter> query = QueryParameter.parse(r.rawQuery());
    PresignedParams p = PresignedParams.parse(query);
    CredentialScope cred = p.credential();
    Credentials secret = lookup(cred.accessKey());
    if (!p.amzDate().startsWith(cred.date())) {
      throw S3AuthException.queryMalformed("Invalid credential date \"" + cred.date()
          + "\": it must be the date of X-Amz-Date " + p.amzDate());
    }
    Instant now = clock.instant();
    if (p.time().isAfter(now.plus(maxSkew))) {
      throw S3AuthException.accessDenied("Request is not valid yet: X-Amz-Date " + p.amzDate()
          + " is in the future");
    }
    if (now.isAfter(p.time().plusSeconds(p.expiresSeconds()))) {
      throw S3AuthException.accessDenied("Request has expired");
    }
    PayloadMode mode = PayloadMode.parse(p.payloadHash());
    if (mode == null || mode.streaming()) {
      throw S3AuthException.queryMalformed("X-Amz-Content-Sha256 must be UNSIGNED-PAYLOAD or the hex SHA-256 "
          + "of the body in a presigned URL");
    }
    if (!p.signedHeaders().contains("host")) {
      throw S3AuthException.queryMalformed("the host header must be signed (listed in X-Amz-SignedHeaders)");
    }
    requireAmzHeadersSigned(r.headers(), p.signedHeaders());

    String canonical = CanonicalRequest.build(r, query, true, p.signedHeaders(), p.payloadHash());
    ChunkSigner signer = signer(secret, cred, p.amzDate());
    String expected = signer.requestSignature(canonical);
    if (!ChunkSigner.sameSignature(expected, p.signature())) {
      throw S3AuthException.signatureMismatch("request");
    }
    return new Authentication(cred.accessKey(), mode,
        mode == PayloadMode.SIGNED_HASH ? p.payloadHash().toLowerCase(Locale.ROOT) : null, expected, signer);
  }

  private Credentials lookup(String accessKey) {
    return credentials.find(accessKey).orElseThrow(() -> S3AuthException.unknownAccessKey(accessKey));
  }

  private void checkSkew(Instant requestTime) {
    Instant now = clock.instant();
    if (Duration.between(requestTime, now).abs().compareTo(maxSkew) > 0) {
      throw S3AuthException.tooSkewed("The difference between the request time (" + requestTime
          + ") and the server's time (" + now + ") is too large; at most " + maxSkew.toMinutes()
          + " minutes are allowed");
    }
  }

  /**
   * As S3 does, refuses {@code x-amz-*} headers the client did not sign: otherwise anyone holding a signed request
   * could add, say, metadata or a copy source to it. x-amz-content-sha256 is exempt: header auth signs its value as
   * the payload hash line, and presigned URLs ignore it.
   */
  private static void requireAmzHeadersSigned(HttpHeaders headers, List<String> signedHeaders) {
    for (String name : headers.names()) {
      String lower = name.toLowerCase(Locale.ROOT);
      if (lower.startsWith("x-amz-") && !lower.equals(X_AMZ_CONTENT_SHA256) && !signedHeaders.contains(lower)) {
        throw S3AuthException.accessDenied("There were headers present in the request which were not signed: "
            + lower);
      }
    }
  }

  private ChunkSigner signer(Credentials secret, CredentialScope cred, String amzDate) {
    if (keys.size() >= MAX_KEYS) {
      keys.clear();
    }
    SigningKey key = keys.computeIfAbsent(secret.accessKey() + "/" + cred.scope(),
        k -> SigningKey.derive(secret.secretKey(), cred.date(), cred.region(), cred.service()));
    return new ChunkSigner(key, amzDate, cred.scope());
  }
}
