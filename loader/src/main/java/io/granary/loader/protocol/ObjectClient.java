package io.granary.loader.protocol;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.function.Supplier;

/**
 * One endpoint of the API under load. Implementations are shared by the workers of that endpoint, so every
 * method is thread-safe. A failed operation throws; the message is one line (status and error code if any).
 */
public interface ObjectClient extends AutoCloseable {

  /** Reads a GET's body; returns the number of bytes it read (all of them). */
  @FunctionalInterface
  interface BodyConsumer {
    /** {@code etag} is the response's ETag without quotes, or null. */
    long consume(InputStream body, String etag) throws IOException;
  }

  /**
   * Checks, before any load, that the endpoint answers and the bucket exists. Throws
   * {@link io.granary.loader.LoaderException} with a one-line reason otherwise. {@code sampleName} is an object
   * the run will read, or null; endpoints without buckets (http) probe it instead.
   */
  void probe(String sampleName);

  /** GETs the whole object and hands its body to {@code consumer}; returns what the consumer returned. */
  long get(String name, BodyConsumer consumer) throws Exception;

  /**
   * GETs bytes {@code offset} to {@code offset + length - 1} of the object ({@code length} 0: to its end) with a
   * {@code Range} header, expecting 206, and hands that body to {@code consumer}. Offset and length 0 is
   * {@link #get(String, BodyConsumer)}.
   */
  default long get(String name, long offset, long length, BodyConsumer consumer) throws Exception {
    if (rangeHeader(offset, length) == null) {
      return get(name, consumer);
    }
    throw new UnsupportedOperationException("this protocol does not read ranges");
  }

  /** {@code bytes=OFF-LAST} or {@code bytes=OFF-} for a range read; null for the whole object. */
  static String rangeHeader(long offset, long length) {
    if (offset == 0 && length == 0) {
      return null;
    }
    return "bytes=" + offset + "-" + (length == 0 ? "" : Long.toString(offset + length - 1));
  }

  /**
   * Consumes the next bytes of a body without looking at them, at most {@code buf.length}; returns how many, -1 at
   * its end. A body of the loader's own GET client is consumed where it was received, never copied to the heap; any
   * other is read into {@code buf}.
   */
  static int advance(InputStream body, byte[] buf) throws IOException {
    if (body instanceof BodyStream) {
      long n = body.skip(buf.length);
      return n > 0 ? (int) n : -1;
    }
    return body.read(buf, 0, buf.length);
  }

  /** Consumes a body to its end without looking at it ({@link #advance}); returns its length. */
  static long discard(InputStream body, byte[] buf) throws IOException {
    long total = 0;
    for (int n; (n = advance(body, buf)) >= 0; ) {
      total += n;
    }
    return total;
  }

  /** PUTs {@code size} bytes; {@code content} makes a fresh stream of them for each (re)send. */
  void put(String name, long size, Supplier<InputStream> content) throws Exception;

  /** Deletes the object; a missing one is not an error. */
  void delete(String name) throws Exception;

  /** Every object name in the bucket. */
  List<String> list() throws Exception;

  @Override
  void close();
}
