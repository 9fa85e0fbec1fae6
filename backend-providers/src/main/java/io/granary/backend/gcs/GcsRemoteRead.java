package io.granary.backend.gcs;

import com.google.cloud.ReadChannel;
import io.granary.backend.BackendException;
import io.granary.backend.RemoteObject;
import io.granary.backend.RemoteRead;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;

/**
 * A {@link RemoteRead} over a google-cloud-storage {@link ReadChannel} limited to the range. The channel opens its
 * request lazily, so {@link #open} reads a first small block right away: a missing object or a failed generation
 * precondition then surfaces from {@code Backend.read} as NOT_FOUND or CHANGED, as it does for S3. Not thread-safe.
 */
final class GcsRemoteRead implements RemoteRead {
  /** First block read at open; later reads go straight into the caller's buffer. */
  static final int FIRST_BLOCK = 64 * 1024;

  private final ReadChannel channel;
  private final RemoteObject object;
  private final long offset;
  private final long length;
  private final String what;
  private ByteBuffer first; // bytes read at open and not yet handed out; null once drained
  private long delivered;
  private boolean open = true;

  private GcsRemoteRead(ReadChannel channel, RemoteObject object, long offset, long length, String what) {
    this.channel = channel;
    this.object = object;
    this.offset = offset;
    this.length = length;
    this.what = what;
  }

  static GcsRemoteRead open(ReadChannel channel, RemoteObject object, long offset, long length, String what)
      throws BackendException {
    GcsRemoteRead read = new GcsRemoteRead(channel, object, offset, length, what);
    if (length > 0) {
      try {
        read.first = ByteBuffer.allocate((int) Math.min(FIRST_BLOCK, length));
        read.fill(read.first);
        read.first.flip();
      } catch (BackendException e) {
        read.close();
        throw e;
      }
    }
    return read;
  }

  @Override
  public int read(ByteBuffer dst) throws IOException {
    if (!open) {
      throw new ClosedChannelException();
    }
    if (first != null) {
      int n = Math.min(first.remaining(), dst.remaining());
      dst.put(dst.position(), first, first.position(), n).position(dst.position() + n);
      first.position(first.position() + n);
      if (!first.hasRemaining()) {
        first = null;
      }
      return n;
    }
    long left = length - delivered;
    if (left == 0) {
      return -1;
    }
    if (!dst.hasRemaining()) {
      return 0;
    }
    // Never ask for more than the range holds: the caller's buffer may be larger than what is left.
    int limit = dst.limit();
    if (dst.remaining() > left) {
      dst.limit(dst.position() + (int) left);
    }
    try {
      return readSome(dst);
    } finally {
      dst.limit(limit);
    }
  }

  /** Reads until {@code buf} is full, for the first block. */
  private void fill(ByteBuffer buf) throws BackendException {
    while (buf.hasRemaining()) {
      readSome(buf);
    }
  }

  private int readSome(ByteBuffer dst) throws BackendException {
    int n;
    try {
      n = channel.read(dst);
    } catch (IOException | RuntimeException e) {
      throw GcsErrors.bodyFailure(what, delivered, length, e);
    }
    if (n < 0) {
      // The library reports a short body as a clean end; the promised length says otherwise.
      throw new BackendException(BackendException.Kind.TRUNCATED, 0,
          what + ": body ended after " + delivered + " of " + length + " bytes");
    }
    delivered += n;
    return n;
  }

  @Override
  public RemoteObject object() {
    return object;
  }

  @Override
  public long offset() {
    return offset;
  }

  @Override
  public long length() {
    return length;
  }

  @Override
  public boolean isOpen() {
    return open;
  }

  /** Closing the channel disconnects the underlying response, so an early close does not drain the body. */
  @Override
  public void close() {
    if (open) {
      open = false;
      first = null;
      channel.close();
    }
  }
}
