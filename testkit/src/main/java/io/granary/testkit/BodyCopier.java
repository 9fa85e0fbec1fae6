package io.granary.testkit;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Copies one HTTP message body (Content-Length, chunked, or until close) from one socket to another, applying at
 * most one {@link FaultProxy.Fault} at an offset of the payload. Offsets count payload bytes: chunk framing is
 * forwarded as it came but neither counted nor corrupted.
 */
final class BodyCopier {
  /** Thrown when a Truncate fault cut the body: the caller closes both connections. */
  static final class Truncated extends IOException {
    Truncated() {
      super("truncated by fault");
    }
  }

  private final byte[] buf = new byte[Staging.BUFFER];
  private final long stallAt;
  private final Duration stall;
  private final long truncateAt;
  private final long corruptAt;
  private long pos;
  private boolean stalled;

  private BodyCopier(long stallAt, Duration stall, long truncateAt, long corruptAt) {
    this.stallAt = stallAt;
    this.stall = stall;
    this.truncateAt = truncateAt;
    this.corruptAt = corruptAt;
  }

  static BodyCopier plain() {
    return new BodyCopier(-1, Duration.ZERO, -1, -1);
  }

  /** A copier applying {@code fault} (Stall after body bytes, Truncate, Corrupt; others are ignored here). */
  static BodyCopier with(FaultProxy.Fault fault) {
    if (fault instanceof FaultProxy.Fault.Stall s && s.afterBodyBytes() > 0) {
      return new BodyCopier(s.afterBodyBytes(), s.delay(), -1, -1);
    } else if (fault instanceof FaultProxy.Fault.Truncate t) {
      return new BodyCopier(-1, Duration.ZERO, Math.max(0, t.afterBodyBytes()), -1);
    } else if (fault instanceof FaultProxy.Fault.Corrupt c) {
      return new BodyCopier(-1, Duration.ZERO, -1, c.offset());
    }
    return plain();
  }

  boolean truncates() {
    return truncateAt >= 0;
  }

  /** Copies the body framed as {@code head} says; {@code untilClose} bodies end at end of stream. */
  void copy(HttpHead head, InputStream in, OutputStream out, boolean untilClose) throws IOException {
    if (head.chunked()) {
      chunked(in, out);
    } else if (head.contentLength() >= 0) {
      payload(in, out, head.contentLength(), false);
    } else if (untilClose) {
      payload(in, out, Long.MAX_VALUE, true);
    }
    if (truncates() && pos >= truncateAt) {
      out.flush();
      throw new Truncated();
    }
  }

  private void chunked(InputStream in, OutputStream out) throws IOException {
    while (true) {
      String line = line(in, out);
      int semi = line.indexOf(';');
      long size = Long.parseLong((semi < 0 ? line : line.substring(0, semi)).trim(), 16);
      if (size == 0) {
        // Trailers, then the blank line.
        while (!line(in, out).isEmpty()) {
          // forwarded by line()
        }
        return;
      }
      payload(in, out, size, false);
      line(in, out); // CRLF after the chunk data
    }
  }

  private void payload(InputStream in, OutputStream out, long n, boolean untilEof) throws IOException {
    while (n > 0) {
      if (truncateAt >= 0 && pos >= truncateAt) {
        out.flush();
        throw new Truncated();
      }
      if (stallAt >= 0 && !stalled && pos >= stallAt) {
        out.flush();
        sleep(stall);
        stalled = true;
      }
      long len = Math.min(buf.length, n);
      if (truncateAt >= 0) {
        len = Math.min(len, truncateAt - pos);
      }
      if (stallAt > pos && !stalled) {
        len = Math.min(len, stallAt - pos);
      }
      int r = in.read(buf, 0, (int) len);
      if (r < 0) {
        if (untilEof) {
          return;
        }
        throw new EOFException("peer closed mid-body with " + n + " bytes to go");
      }
      if (corruptAt >= pos && corruptAt < pos + r) {
        buf[(int) (corruptAt - pos)] ^= (byte) 0xff;
      }
      out.write(buf, 0, r);
      pos += r;
      n -= r;
    }
  }

  /** Reads one CRLF-terminated line, forwards it raw, returns it without the line end. */
  private static String line(InputStream in, OutputStream out) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream(16);
    for (int b = in.read(); ; b = in.read()) {
      if (b < 0) {
        throw new EOFException("peer closed inside chunk framing");
      }
      line.write(b);
      if (b == '\n') {
        break;
      }
      if (line.size() > 8192) {
        throw new IOException("chunk line too long");
      }
    }
    byte[] raw = line.toByteArray();
    out.write(raw);
    return new String(raw, StandardCharsets.ISO_8859_1).strip();
  }

  static void sleep(Duration d) throws IOException {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("stall interrupted");
    }
  }
}
