package io.granary.backend;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;

/**
 * The part of a {@link RemoteRead} every provider shares: the range it serves, reads clamped to what is left of
 * it, and a source that ends before the promised length reported as {@link BackendException.Kind#TRUNCATED}, never
 * as a clean end of stream (client libraries often report a short body as one). Not thread-safe.
 */
public abstract class LengthCheckedRead implements RemoteRead {
  private final RemoteObject object;
  private final long offset;
  private final long length;
  private final String what;
  private long received; // bytes taken from the source
  private boolean open = true;

  /** @param what names the object in messages, e.g. {@code s3://bucket/key} */
  protected LengthCheckedRead(RemoteObject object, long offset, long length, String what) {
    this.object = object;
    this.offset = offset;
    this.length = length;
    this.what = what;
  }

  /** Reads at most {@code dst.remaining()} bytes from the source into {@code dst}; -1 at the source's end. */
  protected abstract int readSource(ByteBuffer dst) throws IOException;

  /** Releases the source; {@code complete} says whether the whole range was read (else abort, do not drain). */
  protected abstract void closeSource(boolean complete);

  @Override
  public int read(ByteBuffer dst) throws IOException {
    ensureOpen();
    return readClamped(dst);
  }

  /** Reads from the source, never past the range; -1 only once the whole range was received. */
  protected final int readClamped(ByteBuffer dst) throws IOException {
    long left = length - received;
    if (left == 0) {
      return -1;
    }
    if (!dst.hasRemaining()) {
      return 0;
    }
    int limit = dst.limit();
    if (dst.remaining() > left) {
      dst.limit(dst.position() + (int) left);
    }
    int n;
    try {
      n = readSource(dst);
    } finally {
      dst.limit(limit);
    }
    if (n < 0) {
      throw new BackendException(BackendException.Kind.TRUNCATED, 0,
          what + ": body ended after " + received + " of " + length + " bytes");
    }
    received += n;
    return n;
  }

  protected final void ensureOpen() throws ClosedChannelException {
    if (!open) {
      throw new ClosedChannelException();
    }
  }

  /** Bytes taken from the source so far. */
  protected final long received() {
    return received;
  }

  protected final String what() {
    return what;
  }

  @Override
  public final RemoteObject object() {
    return object;
  }

  @Override
  public final long offset() {
    return offset;
  }

  @Override
  public final long length() {
    return length;
  }

  @Override
  public final boolean isOpen() {
    return open;
  }

  @Override
  public final void close() {
    if (open) {
      open = false;
      closeSource(received >= length);
    }
  }
}
