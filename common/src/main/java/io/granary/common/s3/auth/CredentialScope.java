package io.granary.common.s3.auth;

import java.util.function.Function;

/**
 * A parsed SigV4 credential: {@code ACCESS_KEY/yyyyMMdd/REGION/SERVICE/aws4_request}. The access key may itself
 * contain '/', so the value is split from the right.
 *
 * @param accessKey who signed
 * @param date the scope's day, {@code yyyyMMdd}
 * @param region any non-empty region name the client signed with
 * @param service the service the client signed for, normally {@code s3}
 */
record CredentialScope(String accessKey, String date, String region, String service) {
  private static final String TERMINATOR = "aws4_request";

  /** Parses {@code value}; {@code malformed} makes the exception for a value that is not a credential. */
  static CredentialScope parse(String value, Function<String, RuntimeException> malformed) {
    String[] parts = new String[4]; // date, region, service, terminator
    int end = value.length();
    for (int i = 3; i >= 0; i--) {
      int slash = value.lastIndexOf('/', end - 1);
      if (slash < 0) {
        throw malformed.apply("the credential must have the form ACCESS_KEY/DATE/REGION/SERVICE/aws4_request");
      }
      parts[i] = value.substring(slash + 1, end);
      end = slash;
    }
    String accessKey = value.substring(0, end);
    if (accessKey.isEmpty() || parts[1].isEmpty() || parts[2].isEmpty()) {
      throw malformed.apply("the credential must have the form ACCESS_KEY/DATE/REGION/SERVICE/aws4_request");
    }
    if (!parts[3].equals(TERMINATOR)) {
      throw malformed.apply("the credential scope must end with aws4_request, not '" + parts[3] + "'");
    }
    if (!eightDigits(parts[0])) {
      throw malformed.apply("the credential date must be 8 digits (yyyyMMdd), not '" + parts[0] + "'");
    }
    return new CredentialScope(accessKey, parts[0], parts[1], parts[2]);
  }

  private static boolean eightDigits(String s) {
    if (s.length() != 8) {
      return false;
    }
    for (int i = 0; i < 8; i++) {
      if (s.charAt(i) < '0' || s.charAt(i) > '9') {
        return false;
      }
    }
    return true;
  }

  /** The scope as it appears in strings to sign: {@code date/region/service/aws4_request}. */
  String scope() {
    return date + "/" + region + "/" + service + "/" + TERMINATOR;
  }
}
