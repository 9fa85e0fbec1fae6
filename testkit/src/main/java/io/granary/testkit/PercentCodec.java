package io.granary.testkit;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/** RFC 3986 percent-encoding for path segments and query strings ('+' is a plus in paths, a space in queries). */
final class PercentCodec {
  private PercentCodec() {
  }

  static String decode(String s, boolean plusIsSpace) {
    if (s.indexOf('%') < 0 && (!plusIsSpace || s.indexOf('+') < 0)) {
      return s;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '%' && i + 2 < s.length()) {
        out.write(Integer.parseInt(s, i + 1, i + 3, 16));
        i += 2;
      } else if (c == '+' && plusIsSpace) {
        out.write(' ');
      } else {
        byte[] b = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
        if (Character.isHighSurrogate(c) && i + 1 < s.length()) {
          b = s.substring(i, i + 2).getBytes(StandardCharsets.UTF_8);
          i++;
        }
        out.writeBytes(b);
      }
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  /** Encodes everything but unreserved characters, so '/' becomes %2F as the GCS clients send it. */
  static String encode(String s) {
    StringBuilder sb = new StringBuilder(s.length());
    for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xff;
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.'
          || c == '_' || c == '~') {
        sb.append((char) c);
      } else {
        sb.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
            .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
      }
    }
    return sb.toString();
  }

  /** Query parameters, first value wins; null query gives an empty map. */
  static Map<String, String> query(String rawQuery) {
    Map<String, String> params = new LinkedHashMap<>();
    if (rawQuery == null || rawQuery.isEmpty()) {
      return params;
    }
    for (String pair : rawQuery.split("&")) {
      int eq = pair.indexOf('=');
      String k = decode(eq < 0 ? pair : pair.substring(0, eq), true);
      String v = eq < 0 ? "" : decode(pair.substring(eq + 1), true);
      params.putIfAbsent(k, v);
    }
    return params;
  }
}
