package io.granary.testkit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Streams the parts of a {@code multipart/related} body with a bounded buffer: each part's bytes go to an
 * OutputStream as they arrive, so a large media part is never held in memory.
 */
final class MultipartReader {
  private final InputStream in;
  private final byte[] delimiter; // CRLF "--" boundary
  private final byte[] buf = new byte[Staging.BUFFER];
  private int pos;
  private int lim;
  private boolean eof;

  MultipartReader(InputStream in, String boundary) {
    this.in = in;
    this.delimiter = ("\r\n--" + boundary).getBytes(StandardCharsets.ISO_8859_1);
    // The first delimiter has no preceding CRLF; pretend it had, so every delimiter looks the same.
    buf[0] = '\r';
    buf[1] = '\n';
    lim = 2;
  }

  static String boundary(String contentType) {
    if (contentType == null) {
      return null;
    }
    for (String param : contentType.split(";")) {
      String p = param.trim();
      if (p.toLowerCase(Locale.ROOT).startsWith("boundary=")) {
        String b = p.substring("boundary=".length());
        return b.startsWith("\"") && b.endsWith("\"") && b.length() >= 2 ? b.substring(1, b.length() - 1) : b;
      }
    }
    return null;
  }

  /** Skips the preamble up to the first boundary. */
  void start() throws IOException {
    copyUntilDelimiter(OutputStream.nullOutputStream());
  }

  /** After a delimiter: the next part's headers (lower-case names), or null after the closing delimiter. */
  Map<String, String> nextPartHeaders() throws IOException {
    require(2);
    if (buf[pos] == '-' && buf[pos + 1] == '-') {
      return null;
    }
    readLine(); // The rest of the delimiter line (CRLF, maybe transport padding).
    Map<String, String> headers = new LinkedHashMap<>();
    for (String line = readLine(); !line.isEmpty(); line = readLine()) {
      int colon = line.indexOf(':');
      if (colon > 0) {
        headers.put(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), line.substring(colon + 1).trim());
      }
    }
    return headers;
  }

  /** Copies the current part's body to {@code out}, consuming the delimiter that ends it. */
  void copyUntilDelimiter(OutputStream out) throws IOException {
    while (true) {
      fill(delimiter.length);
      int at = indexOf(delimiter, pos, lim);
      if (at >= 0) {
        out.write(buf, pos, at - pos);
        pos = at + delimiter.length;
        return;
      }
      if (eof) {
        throw GcsException.badRequest("multipart body ended without a closing boundary");
      }
      int safe = lim - pos - (delimiter.length - 1);
      if (safe > 0) {
        out.write(buf, pos, safe);
        pos += safe;
      }
    }
  }

  byte[] readSmallPart(int max) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    copyUntilDelimiter(new OutputStream() {
      @Override
      public void write(int b) {
        write(new byte[] {(byte) b}, 0, 1);
      }

      @Override
      public void write(byte[] b, int off, int len) {
        if (out.size() + len > max) {
          throw GcsException.badRequest("multipart metadata part larger than " + max + " bytes");
        }
        out.write(b, off, len);
      }
    });
    return out.toByteArray();
  }

  private String readLine() throws IOException {
    StringBuilder sb = new StringBuilder();
    while (true) {
      require(1);
      byte b = buf[pos++];
      if (b == '\n') {
        int n = sb.length();
        return n > 0 && sb.charAt(n - 1) == '\r' ? sb.substring(0, n - 1) : sb.toString();
      }
      sb.append((char) (b & 0xff));
      if (sb.length() > 8192) {
        throw GcsException.badRequest("multipart header line too long");
      }
    }
  }

  private void require(int n) throws IOException {
    fill(n);
    if (lim - pos < n) {
      throw GcsException.badRequest("multipart body truncated");
    }
  }

  /** Reads until at least {@code n} bytes are buffered, or end of stream; at least one read when short. */
  private void fill(int n) throws IOException {
    if (lim - pos >= n && pos < lim) {
      return;
    }
    if (pos > 0) {
      System.arraycopy(buf, pos, buf, 0, lim - pos);
      lim -= pos;
      pos = 0;
    }
    boolean readOnce = false;
    while (!eof && (lim < n || !readOnce) && lim < buf.length) {
      int r = in.read(buf, lim, buf.length - lim);
      if (r < 0) {
        eof = true;
      } else {
        lim += r;
      }
      readOnce = true;
    }
  }

  private int indexOf(byte[] needle, int from, int to) {
    outer:
    for (int i = from; i <= to - needle.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (buf[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
