package io.granary.backend.s3;

import io.granary.backend.BackendException;
import io.granary.backend.RemoteObject;
import io.granary.backend.RemoteRead;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * A {@link RemoteRead} over one GetObject response body. Not thread-safe: one reader at a time, like any
 * channel used for a single transfer.
 */
final class S3RemoteRead implements RemoteRead {
  /** Staging size for buffers without an accessible array (direct ones). */
  static final int STAGING = 64 * 1024;

  private final ResponseInputStream<GetObjectResponse> body;
  private final RemoteObject object;
  private final long offset;
  private final long length;
  private final String what;
  private long delivered;
  private byte[] staging; // allocated on the first direct-buffer read, reused after
  private boolean open = true;

  /** {@code body} is null for an empty read, which sends no GET. */
  S3RemoteRead(ResponseInputStream<GetObjectResponse> body, RemoteObject object, long offset, long length,
      String what) {
    this.body = body;
    this.object = object;
    this.offset = offset;
    this.length = length;
    this.what = what;
  }

  @Override
  public int read(ByteBuffer dst) throws IOException {
    if (!open) {
      throw new ClosedChannelException();
    }
    long left = length - delivered;
    if (left == 0) {
      return -1;
    }
    if (!dst.hasRemaining()) {
      return 0;
    }
    int want = (int) Math.min(dst.remaining(), left);
    int n;
    try {
      if (dst.hasArray()) {
        n = body.read(dst.array(), dst.arrayOffset() + dst.position(), want);
        if (n > 0) {
          dst.position(dst.position() + n);
        }
      } else {
        if (staging == null) {
          staging = new byte[STAGING];
        }
        n = body.read(staging, 0, Math.min(want, STAGING));
        if (n > 0) {
          dst.put(staging, 0, n);
        }
      }
    } catch (IOException | SdkException e) {
      throw S3Errors.bodyFailure(what, delivered, length, e);
    }
    if (n < 0) {
      // The connection ended cleanly but early: never pass that off as end of stream.
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

  /** Aborts the connection when bytes remain: draining a large body to reuse the connection costs more. */
  @Override
  public void close() {
    if (!open) {
      return;
    }
    open = false;
    if (body == null) {
      return;
    }
    if (delivered < length) {
      body.abort();
    }
    try {
      body.close();
    } catch (IOException | RuntimeException ignored) {
      // Closing an aborted or broken stream can fail; the connection is released either way.
    }
  }
}
