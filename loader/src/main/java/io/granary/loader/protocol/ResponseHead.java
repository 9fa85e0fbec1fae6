package io.granary.loader.protocol;

import java.io.IOException;
import java.util.Locale;

/**
 * What a loader needs of an HTTP/1.1 response head: status, how the body is framed, whether the connection stays
 * open, and the ETag and Location headers.
 *
 * @param contentLength the body's length, -1 when not given (chunked, or until the connection closes)
 * @param chunked {@code Transfer-Encoding: chunked}
 * @param close the server closes the connection after this response ({@code Connection: close}, or a body framed by
 *     the close)
 * @param etag the ETag header without quotes, or null
 * @param location the Location header, or null
 */
record ResponseHead(int status, long contentLength, boolean chunked, boolean close, String etag, String location) {

  /** Parses a head (status line and header lines, without the final empty line) received from {@code from}. */
  static ResponseHead parse(String head, String from) throws IOException {
    String[] lines = head.split("\r\n", -1);
    String statusLine = lines[0];
    if (!statusLine.startsWith("HTTP/1.") || statusLine.length() < 12 || statusLine.charAt(8) != ' ') {
      throw new IOException("not an HTTP/1.x response from " + from + ": " + abbreviate(statusLine));
    }
    int status;
    try {
      status = Integer.parseInt(statusLine.substring(9, 12));
    } catch (NumberFormatException e) {
      throw new IOException("bad status line from " + from + ": " + abbreviate(statusLine));
    }
    boolean close = statusLine.startsWith("HTTP/1.0");
    long length = -1;
    boolean chunked = false;
    String etag = null;
    String location = null;
    for (int i = 1; i < lines.length; i++) {
      String line = lines[i];
      int colon = line.indexOf(':');
      if (colon <= 0) {
        throw new IOException("bad header line from " + from + ": " + abbreviate(line));
      }
      String name = line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
      String value = line.substring(colon + 1).trim();
      switch (name) {
        case "content-length" -> {
          try {
            length = Long.parseLong(value);
          } catch (NumberFormatException e) {
            throw new IOException("bad Content-Length from " + from + ": " + abbreviate(value));
          }
        }
        case "transfer-encoding" -> chunked = value.toLowerCase(Locale.ROOT).endsWith("chunked");
        case "connection" -> {
          String v = value.toLowerCase(Locale.ROOT);
          close = v.contains("close") || (close && !v.contains("keep-alive"));
        }
        case "etag" -> etag = NativeClient.unquote(value);
        case "location" -> location = value;
        default -> { }
      }
    }
    if (chunked) {
      length = -1;
    }
    boolean bodyless = status == 204 || status == 304 || (status >= 100 && status < 200);
    if (bodyless) {
      length = 0;
      chunked = false;
    } else if (!chunked && length < 0) {
      close = true; // the body ends when the connection does
    }
    return new ResponseHead(status, length, chunked, close, etag, location);
  }

  private static String abbreviate(String s) {
    return s.length() <= 120 ? s : s.substring(0, 120) + "...";
  }
}
