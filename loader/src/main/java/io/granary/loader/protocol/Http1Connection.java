package io.granary.loader.protocol;

import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * One keep-alive HTTP/1.1 connection of one loader worker: blocking reads into one direct buffer, so a read is one
 * system call that sleeps in the kernel (a selector per wait costs more than the read). Bytes reach the Java heap only
 * when a caller asks for them ({@link BodyStream#read}); a discarded body never does. A blocking channel has no read
 * timeout: {@link Http1Gets}' watchdog closes a connection that has waited longer than its timeout
 * ({@link #stalledSince}), which ends the read with an error.
 *
 * <p>Not thread-safe, but for {@link #close} and {@link #stalledSince}: a worker uses its connection for one request
 * at a time.
 */
final class Http1Connection implements AutoCloseable {
  /** Read buffer: large reads cost fewer system calls per GiB than wrk's 8 KiB ones. */
  static final int BUFFER_BYTES = 256 * 1024;
  /** The most bytes of a response head (status line and headers) accepted. */
  static final int MAX_HEAD_BYTES = 64 * 1024;

  private final String authority;
  private final SocketChannel channel;
  private final Consumer<Http1Connection> onClose;
  /** Read mode between calls: position..limit are received bytes not consumed yet. */
  private final ByteBuffer in = ByteBuffer.allocateDirect(BUFFER_BYTES).flip();
  /** System.nanoTime() when the current blocking read or write began; 0 when none is under way. */
  private volatile long waitingSince;
  private volatile boolean timedOut;
  private final AtomicBoolean open = new AtomicBoolean(true);

  private Http1Connection(String authority, SocketChannel channel, Consumer<Http1Connection> onClose) {
    this.authority = authority;
    this.channel = channel;
    this.onClose = onClose;
  }

  /**
   * Connects to {@code host:port} within {@code connectTimeout}.
   *
   * @param onClose told once when the connection closes, whoever closes it
   */
  static Http1Connection open(String host, int port, Duration connectTimeout, Consumer<Http1Connection> onClose)
      throws IOException {
    SocketChannel ch = SocketChannel.open();
    try {
      ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
      try {
        ch.socket().connect(new InetSocketAddress(host, port), (int) connectTimeout.toMillis());
      } catch (SocketTimeoutException e) {
        throw new ConnectException("no connection to " + host + ":" + port + " within "
            + connectTimeout.toSeconds() + "s");
      }
      return new Http1Connection(host + ":" + port, ch, onClose);
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
  }

  String authority() {
    return authority;
  }

  /** When the read or write under way began (System.nanoTime()), 0 when none is. */
  long stalledSince() {
    return waitingSince;
  }

  /** Closes the connection because its read or write took too long: the blocked call fails with a timeout. */
  void timeOut() {
    timedOut = true;
    close();
  }

  /** Sends a request head (ASCII, ends with an empty line); the request has no body. */
  void send(String head) throws IOException {
    ByteBuffer out = ByteBuffer.wrap(head.getBytes(StandardCharsets.ISO_8859_1));
    waitingSince = System.nanoTime();
    try {
      while (out.hasRemaining()) {
        channel.write(out);
      }
    } catch (IOException e) {
      throw timedOut ? timeout(e) : e;
    } finally {
      waitingSince = 0;
    }
  }

  /**
   * Reads the response head; a 1xx interim answer is skipped.
   *
   * @throws EOFException when the connection ends before a whole head (a reused one the server had closed)
   */
  ResponseHead readHead() throws IOException {
    while (true) {
      int end = headEnd();
      while (end < 0) {
        if (in.remaining() >= MAX_HEAD_BYTES) {
          throw new IOException("response head from " + authority + " exceeds " + MAX_HEAD_BYTES + " bytes");
        }
        if (fill() < 0) {
          throw new EOFException("connection to " + authority + " closed before a response head");
        }
        end = headEnd();
      }
      byte[] head = new byte[end - in.position()];
      in.get(head);
      in.position(in.position() + 4);
      ResponseHead h = ResponseHead.parse(new String(head, StandardCharsets.ISO_8859_1), authority);
      if (h.status() >= 200 || h.status() == 101) {
        return h;
      }
    }
  }

  /** Index of the {@code \r\n\r\n} ending a head in the buffer, or -1. */
  private int headEnd() {
    for (int i = in.position(); i + 3 < in.limit(); i++) {
      if (in.get(i) == '\r' && in.get(i + 1) == '\n' && in.get(i + 2) == '\r' && in.get(i + 3) == '\n') {
        return i;
      }
    }
    return -1;
  }

  /** The buffer, in read mode: received bytes not consumed yet, for {@link BodyStream}. */
  ByteBuffer buffer() {
    return in;
  }

  /**
   * Reads more bytes into the buffer (keeping the unconsumed ones), waiting up to the read timeout.
   *
   * @return bytes read, or -1 at the end of the stream
   */
  int fill() throws IOException {
    if (in.position() == in.limit() || in.limit() == in.capacity()) {
      in.compact().flip(); // unconsumed bytes to the front: room to read into
    }
    int start = in.position();
    in.position(in.limit()).limit(in.capacity());
    waitingSince = System.nanoTime();
    try {
      return channel.read(in);
    } catch (IOException e) {
      throw timedOut ? timeout(e) : e;
    } finally {
      waitingSince = 0;
      in.limit(in.position()).position(start);
    }
  }

  private SocketTimeoutException timeout(IOException cause) {
    SocketTimeoutException e = new SocketTimeoutException("no progress from " + authority + " within the timeout");
    e.initCause(cause);
    return e;
  }

  @Override
  public void close() {
    if (!open.compareAndSet(true, false)) {
      return;
    }
    try {
      channel.close();
    } catch (IOException ignored) {
      // closing: nothing more to do with it
    }
    onClose.accept(this);
  }
}
