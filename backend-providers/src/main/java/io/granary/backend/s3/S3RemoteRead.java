package io.granary.backend.s3;

import io.granary.backend.LengthCheckedRead;
import io.granary.backend.RemoteObject;
import java.io.IOException;
import java.nio.ByteBuffer;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.http.AbortableInputStream;

/**
 * A remote read over one object GET's response body. Not thread-safe: one reader at a time, like any channel used for
 * a single transfer.
 */
final class S3RemoteRead extends LengthCheckedRead {
  /** Staging size for buffers without an accessible array (direct ones). */
  static final int STAGING = 64 * 1024;

  private final AbortableInputStream body;
  private byte[] staging; // allocated on the first direct-buffer read, reused after

  /** {@code body} is null for an empty read, which sends no GET. */
  S3RemoteRead(AbortableInputStream body, RemoteObject object, long offset, long length,
      String what) {
    super(object, offset, length, what);
    this.body = body;
  }

  @Override
  protected int readSource(ByteBuffer dst) throws IOException {
    int want = dst.remaining();
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
      throw S3Errors.bodyFailure(what(), received(), length(), e);
    }
    return n;
  }

  /** Aborts the connection when bytes remain: draining a large body to reuse the connection costs more. */
  @Override
  protected void closeSource(boolean complete) {
    if (body == null) {
      return;
    }
    if (!complete) {
      body.abort();
    }
    try {
      body.close();
    } catch (IOException | RuntimeException ignored) {
      // Closing an aborted or broken stream can fail; the connection is released either way.
    }
  }
}
