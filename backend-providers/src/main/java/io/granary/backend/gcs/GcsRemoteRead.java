package io.granary.backend.gcs;

import com.google.cloud.ReadChannel;
import io.granary.backend.BackendException;
import io.granary.backend.LengthCheckedRead;
import io.granary.backend.RemoteObject;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A remote read over a google-cloud-storage {@link ReadChannel} limited to the range. The channel opens its request
 * lazily, so {@link #open} reads a first small block right away: a missing object or a failed generation
 * precondition then surfaces from {@code Backend.read} as NOT_FOUND or CHANGED, as it does for S3. Not thread-safe.
 */
final class GcsRemoteRead extends LengthCheckedRead {
  /** First block read at open; later reads go straight into the caller's buffer. */
  static final int FIRST_BLOCK = 64 * 1024;

  private final ReadChannel channel;
  private ByteBuffer first; // bytes read at open and not yet handed out; null once drained

  private GcsRemoteRead(ReadChannel channel, RemoteObject object, long offset, long length, String what) {
    super(object, offset, length, what);
    this.channel = channel;
  }

  static GcsRemoteRead open(ReadChannel channel, RemoteObject object, long offset, long length, String what)
      throws BackendException {
    GcsRemoteRead read = new GcsRemoteRead(channel, object, offset, length, what);
    if (length > 0) {
      try {
        read.first = ByteBuffer.allocate((int) Math.min(FIRST_BLOCK, length));
        while (read.first.hasRemaining()) {
          read.readClamped(read.first);
        }
        read.first.flip();
      } catch (BackendException e) {
        read.close();
        throw e;
      } catch (IOException e) {
        read.close();
        throw new BackendException(BackendException.Kind.OTHER, 0, what + ": " + e.getMessage(), e);
      }
    }
    return read;
  }

  @Override
  public int read(ByteBuffer dst) throws IOException {
    ensureOpen();
    if (first != null) {
      int n = Math.min(first.remaining(), dst.remaining());
      dst.put(dst.position(), first, first.position(), n).position(dst.position() + n);
      first.position(first.position() + n);
      if (!first.hasRemaining()) {
        first = null;
      }
      return n;
    }
    return readClamped(dst);
  }

  @Override
  protected int readSource(ByteBuffer dst) throws IOException {
    try {
      return channel.read(dst);
    } catch (IOException | RuntimeException e) {
      throw GcsErrors.bodyFailure(what(), received(), length(), e);
    }
  }

  /** Closing the channel disconnects the underlying response, so an early close does not drain the body. */
  @Override
  protected void closeSource(boolean complete) {
    first = null;
    channel.close();
  }
}
