package io.granary.common.s3.auth;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The X-Amz-* query parameters of a presigned URL, validated.
 *
 * @param credential who signed, and the scope
 * @param amzDate X-Amz-Date as sent ({@code 20130524T000000Z})
 * @param time X-Amz-Date as an instant
 * @param expiresSeconds X-Amz-Expires, 1..604800
 * @param signedHeaders X-Amz-SignedHeaders, lower-case
 * @param signature X-Amz-Signature, lower-case hex
 * @param payloadHash X-Amz-Content-Sha256 when given, else {@code UNSIGNED-PAYLOAD}
 */
record PresignedParams(CredentialScope credential, String amzDate, Instant time, long expiresSeconds,
                       List<String> signedHeaders, String signature, String payloadHash) {
  static final String ALGORITHM = "X-Amz-Algorithm";
  static final String CREDENTIAL = "X-Amz-Credential";
  static final String DATE = "X-Amz-Date";
  static final String EXPIRES = "X-Amz-Expires";
  static final String SIGNED_HEADERS = "X-Amz-SignedHeaders";
  static final String SIGNATURE = "X-Amz-Signature";
  static final String CONTENT_SHA256 = "X-Amz-Content-Sha256";
  static final long MAX_EXPIRES_SECONDS = 7 * 24 * 3600;

  private static final List<String> AUTH_PARAMS =
      List.of(ALGORITHM, CREDENTIAL, DATE, EXPIRES, SIGNED_HEADERS, SIGNATURE, CONTENT_SHA256);

  /** Whether the query tries to authenticate with SigV4 query parameters. */
  static boolean present(String rawQuery) {
    return QueryParameter.hasRawName(rawQuery, ALGORITHM) || QueryParameter.hasRawName(rawQuery, CREDENTIAL)
        || QueryParameter.hasRawName(rawQuery, SIGNATURE);
  }


  /** Validates the presign parameters among {@code query}; problems are 400 AuthorizationQueryParametersError. */
  static PresignedParams parse(List<QueryParameter> query) {
    Map<String, String> p = new HashMap<>();
    for (QueryParameter q : query) {
      if (AUTH_PARAMS.contains(q.name()) && p.put(q.name(), q.value()) != null) {
        throw S3AuthException.queryMalformed("query parameter " + q.name() + " is given more than once");
      }
    }
    for (String required : List.of(ALGORITHM, CREDENTIAL, DATE, EXPIRES, SIGNED_HEADERS, SIGNATURE)) {
      if (!p.containsKey(required)) {
        throw S3AuthException.queryMalformed("Query-string authentication version 4 requires the X-Amz-Algorithm, "
            + "X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters; "
            + required + " is missing");
      }
    }
    if (!p.get(ALGORITHM).equals(AuthorizationHeader.ALGORITHM)) {
      throw S3AuthException.queryMalformed("X-Amz-Algorithm only supports \"AWS4-HMAC-SHA256\"");
    }
    CredentialScope credential = CredentialScope.parse(p.get(CREDENTIAL), S3AuthException::queryMalformed);
    String amzDate = p.get(DATE);
    Instant time = AmzDate.parseBasic(amzDate);
    if (time == null) {
      throw S3AuthException.queryMalformed("X-Amz-Date must be in the ISO8601 basic format yyyyMMdd'T'HHmmss'Z'");
    }
    long expires = parseExpires(p.get(EXPIRES));
    List<String> signedHeaders =
        AuthorizationHeader.parseSignedHeaders(p.get(SIGNED_HEADERS), S3AuthException::queryMalformed);
    String signature = p.get(SIGNATURE);
    if (!Sha256.isHex64(signature)) {
      throw S3AuthException.queryMalformed("X-Amz-Signature must be 64 hex digits");
    }
    String payloadHash = p.getOrDefault(CONTENT_SHA256, PayloadMode.UNSIGNED.headerValue());
    return new PresignedParams(credential, amzDate, time, expires, signedHeaders,
        signature.toLowerCase(Locale.ROOT), payloadHash);
  }

  private static long parseExpires(String s) {
    long v = s.isEmpty() || s.length() > 7 ? -1 : 0;
    for (int i = 0; i < s.length() && v >= 0; i++) {
      char c = s.charAt(i);
      v = c >= '0' && c <= '9' ? v * 10 + (c - '0') : -1;
    }
    if (v < 1 || v > MAX_EXPIRES_SECONDS) {
      throw S3AuthException.queryMalformed("X-Amz-Expires must be a number of seconds from 1 to "
          + MAX_EXPIRES_SECONDS + " (7 days)");
    }
    return v;
  }
}
