package io.granary.common.s3.auth;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Verifies AWS Signature Version 2 (HMAC-SHA1), which S3-compatible servers still accept because stock clients still
 * send it: boto3 presigns URLs for a custom endpoint with it unless told {@code signature_version="s3v4"}. Both
 * forms: {@code Authorization: AWS KEY:SIGNATURE} and the query {@code AWSAccessKeyId}, {@code Expires},
 * {@code Signature}. The same key store and the same refusals as SigV4: an unknown key is 403 InvalidAccessKeyId,
 * a wrong signature 403 SignatureDoesNotMatch, a stale request 403 RequestTimeTooSkewed, an expired URL 403
 * AccessDenied.
 *
 * <p>SigV2 signs no body: a verified request's body is {@link PayloadMode#UNSIGNED} (a {@code Content-MD5}, which is
 * signed, is checked against the body by the target as for any request).
 */
final class SigV2Verifier {
  static final String ACCESS_KEY_PARAM = "AWSAccessKeyId";
  static final String EXPIRES_PARAM = "Expires";
  static final String SIGNATURE_PARAM = "Signature";
  private static final String HEADER_PREFIX = "AWS ";
  private static final String HMAC_SHA1 = "HmacSHA1";
  /** One Mac per thread, as SigV4's {@link SigningKey}: Mac.getInstance walks the provider list on every call. */
  private static final ThreadLocal<Mac> MAC = ThreadLocal.withInitial(() -> {
    try {
      return Mac.getInstance(HMAC_SHA1);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("HmacSHA1 is not available", e);
    }
  });
  /**
   * The query parameters that are part of the signed resource (S3's "sub-resources" and response overrides), as
   * botocore's HmacV1Auth lists them; any other parameter is not signed.
   */
  private static final Set<String> SIGNED_PARAMS = Set.of("accelerate", "acl", "analytics", "cors",
      "defaultObjectAcl", "delete", "inventory", "legal-hold", "lifecycle", "location", "logging", "metrics",
      "notification", "object-lock", "partNumber", "policy", "replication", "requestPayment",
      "response-cache-control", "response-content-disposition", "response-content-encoding",
      "response-content-language", "response-content-type", "response-expires", "restore", "retention", "select",
      "select-type", "storageClass", "tagging", "torrent", "uploadId", "uploads", "versionId", "versioning",
      "versions", "website");

  private final CredentialStore credentials;
  private final Clock clock;
  private final Duration maxSkew;

  SigV2Verifier(CredentialStore credentials, Clock clock, Duration maxSkew) {
    this.credentials = credentials;
    this.clock = clock;
    this.maxSkew = maxSkew;
  }

  /** Whether an Authorization header value is of the SigV2 form ({@code AWS KEY:SIGNATURE}). */
  static boolean isHeaderForm(String authorization) {
    return authorization.startsWith(HEADER_PREFIX);
  }

  /** Whether the query carries SigV2 presign parameters. */
  static boolean isPresigned(String rawQuery) {
    return QueryParameter.hasRawName(rawQuery, ACCESS_KEY_PARAM) || QueryParameter.hasRawName(rawQuery,
        SIGNATURE_PARAM);
  }

  /** Verifies the header form. */
  Authentication verifyHeader(SignedRequest r, String authorization) {
    String rest = authorization.substring(HEADER_PREFIX.length()).strip();
    int colon = rest.lastIndexOf(':');
    if (colon <= 0 || colon == rest.length() - 1) {
      throw S3AuthException.headerMalformed("a Signature Version 2 Authorization header is "
          + "\"AWS AccessKeyId:Signature\"");
    }
    Credentials secret = lookup(rest.substring(0, colon));
    String amzDate = r.headers().get("x-amz-date");
    Instant time = amzDate != null ? AmzDate.parseHttpDate(amzDate) : AmzDate.parseHttpDate(
        r.headers().get(HttpHeaderNames.DATE));
    if (amzDate != null && time == null) {
      time = AmzDate.parseBasic(amzDate);
    }
    if (time == null) {
      throw S3AuthException.accessDenied("AWS authentication requires a valid Date or x-amz-date header");
    }
    Duration skew = Duration.between(time, clock.instant()).abs();
    if (skew.compareTo(maxSkew) > 0) {
      throw S3AuthException.tooSkewed("The difference between the request time (" + time
          + ") and the server's time (" + clock.instant() + ") is too large; at most " + maxSkew.toMinutes()
          + " minutes are allowed");
    }
    // With x-amz-date the Date line is empty: the time is signed among the x-amz-* headers.
    String dateLine = amzDate != null ? "" : nullToEmpty(r.headers().get(HttpHeaderNames.DATE));
    return verified(r, secret, dateLine, rest.substring(colon + 1), List.of());
  }

  /** Verifies the presigned-URL form. */
  Authentication verifyPresigned(SignedRequest r) {
    List<QueryParameter> query = QueryParameter.parse(r.rawQuery());
    Map<String, String> auth = new TreeMap<>();
    for (QueryParameter q : query) {
      if ((q.name().equals(ACCESS_KEY_PARAM) || q.name().equals(EXPIRES_PARAM) || q.name().equals(SIGNATURE_PARAM))
          && auth.put(q.name(), q.value()) != null) {
        throw S3AuthException.queryMalformed("query parameter " + q.name() + " is given more than once");
      }
    }
    if (auth.size() != 3) {
      throw S3AuthException.queryMalformed("a Signature Version 2 presigned URL needs the AWSAccessKeyId, Expires "
          + "and Signature parameters");
    }
    long expires;
    try {
      expires = Long.parseLong(auth.get(EXPIRES_PARAM));
    } catch (NumberFormatException e) {
      throw S3AuthException.queryMalformed("Expires must be seconds since the epoch, got \""
          + auth.get(EXPIRES_PARAM) + "\"");
    }
    Credentials secret = lookup(auth.get(ACCESS_KEY_PARAM));
    if (clock.instant().getEpochSecond() > expires) {
      throw S3AuthException.accessDenied("Request has expired");
    }
    return verified(r, secret, auth.get(EXPIRES_PARAM), auth.get(SIGNATURE_PARAM), query);
  }

  private Authentication verified(SignedRequest r, Credentials secret, String dateLine, String provided,
      List<QueryParameter> parsedQuery) {
    String expected = signature(secret.secretKey(), stringToSign(r, dateLine, parsedQuery.isEmpty()
        ? QueryParameter.parse(r.rawQuery()) : parsedQuery));
    if (!MessageDigest.isEqual(expected.getBytes(StandardCharsets.US_ASCII),
        provided.getBytes(StandardCharsets.US_ASCII))) {
      throw S3AuthException.signatureMismatch("request");
    }
    return new Authentication(secret.accessKey(), PayloadMode.UNSIGNED, null, expected, null);
  }

  /**
   * {@code VERB\nContent-MD5\nContent-Type\nDATE\n} + the x-amz-* headers (lower-case names, sorted, values of a
   * repeated header joined by commas, each line {@code name:value\n}) + the resource: the path as sent and the
   * signed parameters, sorted, decoded, as {@code ?a=1&b}.
   */
  static String stringToSign(SignedRequest r, String dateLine, List<QueryParameter> query) {
    HttpHeaders h = r.headers();
    StringBuilder sb = new StringBuilder(256);
    sb.append(r.method()).append('\n')
        .append(nullToEmpty(h.get("Content-MD5")).strip()).append('\n')
        .append(nullToEmpty(h.get(HttpHeaderNames.CONTENT_TYPE)).strip()).append('\n')
        .append(dateLine).append('\n');
    TreeMap<String, List<String>> amz = new TreeMap<>();
    for (Map.Entry<String, String> e : h) {
      String name = e.getKey().toLowerCase(Locale.ROOT);
      if (name.startsWith("x-amz-")) {
        amz.computeIfAbsent(name, k -> new ArrayList<>()).add(e.getValue().strip());
      }
    }
    amz.forEach((name, values) -> sb.append(name).append(':').append(String.join(",", values)).append('\n'));
    sb.append(r.rawPath());
    TreeMap<String, String> signed = new TreeMap<>();
    for (QueryParameter q : query) {
      if (SIGNED_PARAMS.contains(q.name())) {
        signed.put(q.name(), q.value());
      }
    }
    char sep = '?';
    for (Map.Entry<String, String> e : signed.entrySet()) {
      sb.append(sep).append(e.getKey());
      if (!e.getValue().isEmpty()) {
        sb.append('=').append(e.getValue());
      }
      sep = '&';
    }
    return sb.toString();
  }

  /** Base64 of the HMAC-SHA1 of {@code stringToSign} under {@code secretKey}. */
  static String signature(String secretKey, String stringToSign) {
    Mac mac = MAC.get(); // this thread's own: a Mac is not thread-safe; init resets it and sets this request's key
    try {
      mac.init(new SecretKeySpec(secretKey.getBytes(StandardCharsets.UTF_8), HMAC_SHA1));
    } catch (InvalidKeyException e) {
      throw new IllegalStateException("an HMAC key was refused", e); // any byte string is an HMAC key
    }
    return Base64.getEncoder().encodeToString(mac.doFinal(stringToSign.getBytes(StandardCharsets.UTF_8)));
  }

  private Credentials lookup(String accessKey) {
    return credentials.find(accessKey).orElseThrow(() -> S3AuthException.unknownAccessKey(accessKey));
  }

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
  }
}
