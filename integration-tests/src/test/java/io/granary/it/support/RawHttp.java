package io.granary.it.support;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Requests written byte by byte on a socket, for what real clients would refuse to send: unnormalized paths,
 * bodies shorter than their Content-Length, half-closed connections.
 */
public final class RawHttp {
  private RawHttp() {}

  /** A parsed response. */
  public record Response(int status, Map<String, String> headers, String body) {
  }

  /**
   * Sends {@code head} (request line and headers, without the blank line) and {@code body}; with
   * {@code halfClose} shuts down output after sending, as a client does when its upload ends early.
   */
  public static Response exchange(String baseUrl, String head, byte[] body, boolean halfClose) throws IOException {
    URI u = URI.create(baseUrl);
    try (Socket s = new Socket(u.getHost(), u.getPort())) {
      s.setSoTimeout(30_000);
      OutputStream out = s.getOutputStream();
      out.write((head + "\r\nHost: " + u.getHost() + ":" + u.getPort() + "\r\nConnection: close\r\n\r\n")
          .getBytes(StandardCharsets.ISO_8859_1));
      if (body != null) {
        out.write(body);
      }
      out.flush();
      if (halfClose) {
        s.shutdownOutput();
      }
      return read(s.getInputStream());
    }
  }

  /**
   * Sends {@code requests} (each a request line plus headers, without the blank line) one after another on ONE
   * connection, reading each response fully before the next: what a keep-alive client does.
   */
  public static java.util.List<Response> sequential(String baseUrl, java.util.List<String> requests) throws IOException {
    URI u = URI.create(baseUrl);
    java.util.List<Response> out = new java.util.ArrayList<>();
    try (Socket s = new Socket(u.getHost(), u.getPort())) {
      s.setSoTimeout(30_000);
      InputStream in = new java.io.BufferedInputStream(s.getInputStream());
      for (String head : requests) {
        s.getOutputStream().write((head + "\r\nHost: " + u.getHost() + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
        s.getOutputStream().flush();
        out.add(readOne(in, head.startsWith("HEAD ")));
      }
    }
    return out;
  }

  /** Reads one response delimited by Content-Length. */
  private static Response readOne(InputStream in, boolean head) throws IOException {
    StringBuilder headText = new StringBuilder();
    while (!headText.toString().endsWith("\r\n\r\n")) {
      int c = in.read();
      if (c < 0) {
        throw new IOException("connection closed after '" + headText + "'");
      }
      headText.append((char) c);
    }
    String[] lines = headText.toString().trim().split("\r\n");
    Map<String, String> headers = new TreeMap<>();
    for (int i = 1; i < lines.length; i++) {
      int c = lines[i].indexOf(':');
      headers.put(lines[i].substring(0, c).trim().toLowerCase(Locale.ROOT), lines[i].substring(c + 1).trim());
    }
    byte[] body = head ? new byte[0] : in.readNBytes(Integer.parseInt(headers.getOrDefault("content-length", "0")));
    return new Response(Integer.parseInt(lines[0].split(" ")[1]), headers, new String(body, StandardCharsets.UTF_8));
  }

  private static Response read(InputStream in) throws IOException {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    byte[] buf = new byte[8192];
    for (int n; (n = in.read(buf)) > 0; ) {
      all.write(buf, 0, n);
    }
    String text = all.toString(StandardCharsets.ISO_8859_1);
    // Skip interim 100 Continue responses.
    while (text.startsWith("HTTP/1.1 100")) {
      text = text.substring(text.indexOf("\r\n\r\n") + 4);
    }
    int end = text.indexOf("\r\n\r\n");
    if (end < 0) {
      throw new IOException("no complete response: '" + text + "'");
    }
    String[] lines = text.substring(0, end).split("\r\n");
    int status = Integer.parseInt(lines[0].split(" ")[1]);
    Map<String, String> headers = new TreeMap<>();
    for (int i = 1; i < lines.length; i++) {
      int c = lines[i].indexOf(':');
      headers.put(lines[i].substring(0, c).trim().toLowerCase(Locale.ROOT), lines[i].substring(c + 1).trim());
    }
    String body = new String(text.substring(end + 4).getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8);
    return new Response(status, headers, body);
  }
}
