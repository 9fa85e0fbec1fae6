package io.granary.common.http;

import io.granary.common.error.BadRequestException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * The path of a request URI, split from its query, with strict percent-decoding.
 *
 * <p>Unlike {@code QueryStringDecoder} this keeps '+' literal (it means space only in form-encoded queries),
 * rejects malformed escapes and invalid UTF-8 with 400 instead of substituting characters, and decodes the path
 * only once so that "%252e" stays "%2e".
 *
 * @param raw the path as sent, still percent-encoded
 * @param rawQuery the query string without '?', or empty
 */
public record RequestPath(String raw, String rawQuery) {

  /** Splits a request-target ({@code /a/b?x=1}); only origin-form is accepted. */
  public static RequestPath of(String uri) {
    if (uri.isEmpty() || uri.charAt(0) != '/') {
      throw new BadRequestException(BadRequestException.INVALID_URI, "request target must start with '/'");
    }
    int q = uri.indexOf('?');
    int hash = uri.indexOf('#');
    if (hash >= 0) {
      throw new BadRequestException(BadRequestException.INVALID_URI, "request target must not contain '#'");
    }
    return q < 0 ? new RequestPath(uri, "") : new RequestPath(uri.substring(0, q), uri.substring(q + 1));
  }

  /** Whether the raw path starts with {@code prefix} (compared before decoding). */
  public boolean startsWith(String prefix) {
    return raw.startsWith(prefix);
  }

  /** The decoded remainder after {@code prefix}; the caller checked {@link #startsWith}. */
  public String decodedAfter(String prefix) {
    return decode(raw.substring(prefix.length()));
  }

  /** Percent-decodes {@code s} as UTF-8, strictly. */
  public static String decode(String s) {
    int plain = 0;
    while (plain < s.length() && s.charAt(plain) != '%' && s.charAt(plain) < 0x80) {
      plain++;
    }
    if (plain == s.length()) {
      return s; // plain ASCII; raw non-ASCII chars still need reading as UTF-8 below
    }
    ByteBuffer bytes = ByteBuffer.allocate(s.length() * 3);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '%') {
        if (i + 2 >= s.length()) {
          throw new BadRequestException(BadRequestException.INVALID_URI, "truncated percent-escape in path");
        }
        int hi = Character.digit(s.charAt(i + 1), 16);
        int lo = Character.digit(s.charAt(i + 2), 16);
        if (hi < 0 || lo < 0) {
          throw new BadRequestException(BadRequestException.INVALID_URI,
              "malformed percent-escape '" + s.substring(i, i + 3) + "' in path");
        }
        bytes.put((byte) (hi << 4 | lo));
        i += 2;
      } else if (c < 0x100) {
        // Netty decodes the request line as ISO-8859-1, so raw (unescaped) UTF-8 bytes arrive as chars < 0x100.
        bytes.put((byte) c);
      } else {
        bytes.put(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
      }
    }
    bytes.flip();
    CharsetDecoder dec = StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT);
    try {
      CharBuffer out = dec.decode(bytes);
      return out.toString();
    } catch (CharacterCodingException e) {
      throw new BadRequestException(BadRequestException.INVALID_URI, "path is not valid UTF-8 once percent-decoded");
    }
  }

  /** Percent-encodes a decoded path for use in a URL; '/' and unreserved characters stay as they are. */
  public static String encodePath(String decoded) {
    byte[] b = decoded.getBytes(StandardCharsets.UTF_8);
    StringBuilder sb = new StringBuilder(b.length + 16);
    for (byte x : b) {
      int c = x & 0xff;
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
          || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
        sb.append((char) c);
      } else {
        sb.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
            .append(Character.toUpperCase(Character.forDigit(c & 15, 16)));
      }
    }
    return sb.toString();
  }
}
