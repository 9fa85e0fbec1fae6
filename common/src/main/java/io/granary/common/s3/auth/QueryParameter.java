package io.granary.common.s3.auth;

import io.granary.common.error.BadRequestException;
import io.granary.common.http.RequestPath;
import java.util.ArrayList;
import java.util.List;

/**
 * One decoded query parameter. A parameter without '=' has an empty value; '+' stays a literal plus, as S3 clients
 * encode a space as %20 and a plus as %2B when they sign.
 */
record QueryParameter(String name, String value) {

  /** Splits and strictly decodes {@code rawQuery} (without '?'); empty pieces ("a=1&&b=2") are skipped. */
  static List<QueryParameter> parse(String rawQuery) {
    List<QueryParameter> params = new ArrayList<>();
    if (rawQuery.isEmpty()) {
      return params;
    }
    for (String piece : rawQuery.split("&", -1)) {
      if (piece.isEmpty()) {
        continue;
      }
      int eq = piece.indexOf('=');
      String name = eq < 0 ? piece : piece.substring(0, eq);
      String value = eq < 0 ? "" : piece.substring(eq + 1);
      params.add(new QueryParameter(decode(name), decode(value)));
    }
    return params;
  }

  /** Whether a raw query has a parameter called {@code name}, without decoding it (auth parameter names are ASCII). */
  static boolean hasRawName(String rawQuery, String name) {
    for (String piece : rawQuery.split("&")) {
      int eq = piece.indexOf('=');
      if ((eq < 0 ? piece : piece.substring(0, eq)).equals(name)) {
        return true;
      }
    }
    return false;
  }

  private static String decode(String s) {
    try {
      return RequestPath.decode(s);
    } catch (BadRequestException e) {
      throw new BadRequestException(BadRequestException.INVALID_URI,
          "malformed percent-escape or invalid UTF-8 in the query string");
    }
  }
}
