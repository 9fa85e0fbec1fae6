package io.granary.testkit;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * An HTTP/1.1 request or response head as raw bytes (forwarded unchanged) plus the few parsed fields the
 * {@link FaultProxy} needs to find where the body ends and whether the connection stays open.
 */
final class HttpHead {
  private static final int MAX_HEAD = 64 * 1024;

  final byte[] raw;
  final String startLine;
  private final List<String[]> headers;

  private HttpHead(byte[] raw, String startLine, List<String[]> headers) {
    this.raw = raw;
    this.startLine = startLine;
    this.headers = headers;
  }

  /** Reads up to and including the blank line; null on a clean end of stream before any byte. */
  static HttpHead read(InputStream in) throws IOException {
    ByteArrayOutputStream buf = new ByteArrayOutputStream(512);
    int last4 = 0;
    while (true) {
      int b = in.read();
      if (b < 0) {
        if (buf.size() == 0) {
          return null;
        }
        throw new EOFException("connection closed inside an HTTP head");
      }
      if (buf.size() == 0 && (b == '\r' || b == '\n')) {
        continue; // Stray line ends between messages are allowed (RFC 9112 2.2).
      }
      buf.write(b);
      if (buf.size() > MAX_HEAD) {
        throw new IOException("HTTP head larger than " + MAX_HEAD + " bytes");
      }
      last4 = (last4 << 8) | b;
      if (last4 == 0x0d0a0d0a || (last4 & 0xffff) == 0x0a0a) {
        break;
      }
    }
    byte[] raw = buf.toByteArray();
    String[] lines = new String(raw, StandardCharsets.ISO_8859_1).split("\r?\n");
    List<String[]> headers = new ArrayList<>();
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      if (colon > 0) {
        headers.add(new String[] {lines[i].substring(0, colon).trim(), lines[i].substring(colon + 1).trim()});
      }
    }
    return new HttpHead(raw, lines[0], headers);
  }

  /** This head's bytes with header {@code name} (any case) set to {@code value}, added when it is absent. */
  byte[] withHeader(String name, String value) {
    StringBuilder out = new StringBuilder(startLine).append("\r\n");
    boolean set = false;
    for (String[] h : headers) {
      if (h[0].equalsIgnoreCase(name)) {
        if (!set) {
          out.append(h[0]).append(": ").append(value).append("\r\n");
          set = true;
        }
      } else {
        out.append(h[0]).append(": ").append(h[1]).append("\r\n");
      }
    }
    if (!set) {
      out.append(name).append(": ").append(value).append("\r\n");
    }
    return out.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1);
  }

  String header(String name) {
    for (String[] h : headers) {
      if (h[0].equalsIgnoreCase(name)) {
        return h[1];
      }
    }
    return null;
  }

  boolean hasToken(String name, String token) {
    for (String[] h : headers) {
      if (h[0].equalsIgnoreCase(name)) {
        for (String t : h[1].split(",")) {
          if (t.trim().equalsIgnoreCase(token)) {
            return true;
          }
        }
      }
    }
    return false;
  }

  /** Request method, or "" for a response. */
  String method() {
    return startLine.substring(0, Math.max(0, startLine.indexOf(' ')));
  }

  /** Request target without scheme and authority (absolute-form is reduced to origin-form). */
  String target() {
    String[] parts = startLine.split(" ");
    String t = parts.length > 1 ? parts[1] : "";
    int scheme = t.indexOf("://");
    if (scheme > 0) {
      int slash = t.indexOf('/', scheme + 3);
      t = slash < 0 ? "/" : t.substring(slash);
    }
    return t;
  }

  /** Response status code. */
  int status() {
    String[] parts = startLine.split(" ");
    return parts.length > 1 ? Integer.parseInt(parts[1]) : 0;
  }

  boolean http10() {
    return startLine.startsWith("HTTP/1.0") || startLine.endsWith("HTTP/1.0");
  }

  boolean chunked() {
    return hasToken("Transfer-Encoding", "chunked");
  }

  /** Content-Length, or -1 when absent. */
  long contentLength() {
    String v = header("Content-Length");
    return v == null ? -1 : Long.parseLong(v.trim());
  }

  /** Whether the sender of this head asks to close the connection after the message. */
  boolean wantsClose() {
    return hasToken("Connection", "close") || (http10() && !hasToken("Connection", "keep-alive"));
  }

}
