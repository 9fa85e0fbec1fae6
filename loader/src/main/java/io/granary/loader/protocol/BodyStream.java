package io.granary.loader.protocol;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.function.Consumer;

/**
 * A response body read from its connection's buffer, framed by Content-Length, chunked encoding or the connection's
 * end. {@link #read} copies into the caller's array; {@link #skip} consumes in place, so a body read only to be
 * discarded never reaches the heap. At the end of the body the connection is handed back for the next request
 * (unless the response closes it); closed before its end, a body of more than {@value #DRAIN_LIMIT} bytes closes its
 * connection rather than read the rest.
 */
final class BodyStream extends InputStream {
  /** A body closed early is read to its end (keeping the connection) when at most this much is left. */
  static final long DRAIN_LIMIT = 64 * 1024;

  private final Http1Connection conn;
  private final ResponseHead head;
  private final Consumer<Http1Connection> release;
  private final ByteBuffer buf;
  /** Bytes left in the body (Content-Length) or in the current chunk; -1 for a body that ends with the connection. */
  private long left;
  private boolean eof;
  private boolean done;

  /** @param release takes the connection back once the body has ended and the connection can serve another */
  BodyStream(Http1Connection conn, ResponseHead head, Consumer<Http1Connection> release) throws IOException {
    this.conn = conn;
    this.head = head;
    this.release = release;
    this.buf = conn.buffer();
    this.left = head.chunked() ? 0 : head.contentLength();
    if (head.chunked()) {
      nextChunk();
    } else if (left == 0) {
      end();
    }
  }

  @Override
  public int read() throws IOException {
    if (!available0()) {
      return -1;
    }
    left -= left > 0 ? 1 : 0;
    int b = buf.get() & 0xFF;
    afterConsume();
    return b;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    if (len == 0) {
      return 0;
    }
    if (!available0()) {
      return -1;
    }
    int n = take(len);
    buf.get(b, off, n);
    afterConsume();
    return n;
  }

  /** Consumes up to {@code n} bytes without copying them; 0 only at the end of the body. */
  @Override
  public long skip(long n) throws IOException {
    if (n <= 0 || !available0()) {
      return 0;
    }
    int k = take(n);
    buf.position(buf.position() + k);
    afterConsume();
    return k;
  }

  /** How many bytes the next step may take: at most {@code want}, what is buffered, and what is left of the body. */
  private int take(long want) {
    long k = Math.min(want, buf.remaining());
    if (left >= 0) {
      k = Math.min(k, left);
      left -= k;
    }
    return (int) k;
  }

  /** Whether body bytes are buffered now (reading more when needed); false at the end of the body. */
  private boolean available0() throws IOException {
    if (eof) {
      return false;
    }
    if (!buf.hasRemaining() && conn.fill() < 0) {
      if (left < 0 && !head.chunked()) {
        eof = true; // framed by the connection's end
        conn.close();
        return false;
      }
      conn.close();
      throw new EOFException("connection to " + conn.authority() + " closed with " + left + " bytes of the body"
          + " still to come");
    }
    return true;
  }

  private void afterConsume() throws IOException {
    if (left == 0) {
      if (head.chunked()) {
        expectCrlf();
        nextChunk();
      } else {
        end();
      }
    }
  }

  private void nextChunk() throws IOException {
    String line = line();
    int semi = line.indexOf(';');
    String hex = (semi < 0 ? line : line.substring(0, semi)).trim();
    long size;
    try {
      size = Long.parseLong(hex, 16);
    } catch (NumberFormatException e) {
      conn.close();
      throw new IOException("bad chunk size from " + conn.authority() + ": '" + hex + "'");
    }
    if (size < 0) {
      conn.close();
      throw new IOException("bad chunk size from " + conn.authority() + ": '" + hex + "'");
    }
    if (size == 0) {
      while (!line().isEmpty()) {
        // trailers: not needed
      }
      end();
      return;
    }
    left = size;
  }

  private void expectCrlf() throws IOException {
    if (!line().isEmpty()) {
      conn.close();
      throw new IOException("chunk from " + conn.authority() + " not followed by CRLF");
    }
  }

  /** One CRLF-terminated line of the chunked framing, at most 4 KiB. */
  private String line() throws IOException {
    StringBuilder sb = new StringBuilder();
    while (true) {
      if (!buf.hasRemaining() && conn.fill() < 0) {
        conn.close();
        throw new EOFException("connection to " + conn.authority() + " closed inside the chunked framing");
      }
      byte c = buf.get();
      if (c == '\n') {
        int len = sb.length();
        return len > 0 && sb.charAt(len - 1) == '\r' ? sb.substring(0, len - 1) : sb.toString();
      }
      if (sb.length() >= 4096) {
        conn.close();
        throw new IOException("chunk line from " + conn.authority() + " exceeds 4 KiB");
      }
      sb.append((char) c);
    }
  }

  private void end() {
    eof = true;
    if (!done) {
      done = true;
      if (head.close()) {
        conn.close();
      } else {
        release.accept(conn);
      }
    }
  }

  @Override
  public void close() throws IOException {
    if (done) {
      return;
    }
    if (!eof && head.contentLength() >= 0 && left <= DRAIN_LIMIT) {
      try {
        while (skip(Long.MAX_VALUE) > 0) {
          // drained: the connection serves the next request
        }
      } catch (IOException e) {
        conn.close();
      }
    }
    if (!done) {
      done = true;
      conn.close();
    }
  }
}
