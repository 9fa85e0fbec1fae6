package io.granary.common.s3.auth;

import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * A parsed {@code Authorization: AWS4-HMAC-SHA256 Credential=..., SignedHeaders=a;b, Signature=hex} header.
 *
 * @param credential who signed, and the scope
 * @param signedHeaders the lower-case names of the signed headers, in the order given
 * @param signature the provided signature, 64 hex digits
 */
record AuthorizationHeader(CredentialScope credential, List<String> signedHeaders, String signature) {
  static final String ALGORITHM = "AWS4-HMAC-SHA256";

  /**
   * Parses the header value. Another scheme (AWS Signature Version 2's {@code AWS AK:sig}, SigV4a, anything else)
   * is 400 InvalidRequest; a malformed SigV4 header is 400 AuthorizationHeaderMalformed.
   */
  static AuthorizationHeader parse(String value) {
    String v = value.strip();
    int sp = indexOfWhitespace(v);
    String scheme = sp < 0 ? v : v.substring(0, sp);
    if (!scheme.equals(ALGORITHM)) {
      throw unsupported(scheme);
    }
    CredentialScope credential = null;
    List<String> signedHeaders = null;
    String signature = null;
    for (String part : (sp < 0 ? "" : v.substring(sp)).split(",")) {
      String p = part.strip();
      int eq = p.indexOf('=');
      if (eq < 0) {
        throw S3AuthException.headerMalformed("the Authorization header has a component without '=': '"
            + p + "'");
      }
      String key = p.substring(0, eq);
      String val = p.substring(eq + 1);
      switch (key) {
        case "Credential" -> {
          if (credential != null) {
            throw duplicate(key);
          }
          credential = CredentialScope.parse(val, S3AuthException::headerMalformed);
        }
        case "SignedHeaders" -> {
          if (signedHeaders != null) {
            throw duplicate(key);
          }
          signedHeaders = parseSignedHeaders(val, S3AuthException::headerMalformed);
        }
        case "Signature" -> {
          if (signature != null) {
            throw duplicate(key);
          }
          if (!Sha256.isHex64(val)) {
            throw S3AuthException.headerMalformed("the Signature must be 64 hex digits");
          }
          signature = val.toLowerCase(Locale.ROOT);
        }
        default -> throw S3AuthException.headerMalformed("the Authorization header has an unknown component '"
            + key + "'");
      }
    }
    if (credential == null || signedHeaders == null || signature == null) {
      throw S3AuthException.headerMalformed(
          "the Authorization header needs Credential, SignedHeaders and Signature components");
    }
    return new AuthorizationHeader(credential, signedHeaders, signature);
  }

  /** Splits {@code a;b;c}: lower-case, non-empty names without spaces. */
  static List<String> parseSignedHeaders(String value, Function<String, RuntimeException> malformed) {
    if (value.isEmpty()) {
      throw malformed.apply("SignedHeaders must not be empty");
    }
    List<String> names = List.of(value.split(";", -1));
    for (String n : names) {
      if (n.isEmpty() || !n.equals(n.toLowerCase(Locale.ROOT)) || n.chars().anyMatch(c -> c <= ' ' || c == ':')) {
        throw malformed.apply("SignedHeaders must be lower-case header names separated by ';'");
      }
    }
    return names;
  }

  private static S3AuthException unsupported(String scheme) {
    if (scheme.equals("AWS")) {
      return S3AuthException.invalidRequest("AWS Signature Version 2 is not supported; "
          + "only AWS Signature Version 4 (AWS4-HMAC-SHA256) is supported");
    }
    return S3AuthException.invalidRequest("unsupported authorization type '" + scheme
        + "'; only AWS Signature Version 4 (AWS4-HMAC-SHA256) is supported");
  }

  private static S3AuthException duplicate(String key) {
    return S3AuthException.headerMalformed("the Authorization header has " + key + " twice");
  }

  private static int indexOfWhitespace(String s) {
    for (int i = 0; i < s.length(); i++) {
      if (Character.isWhitespace(s.charAt(i))) {
        return i;
      }
    }
    return -1;
  }
}
