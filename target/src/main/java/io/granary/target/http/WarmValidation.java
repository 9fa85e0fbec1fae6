package io.granary.target.http;

import io.granary.clustermap.bucket.BucketProps;
import io.granary.common.http.ByteRange;
import io.granary.common.http.HttpExchange;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.storage.StoredObject;
import io.netty.handler.codec.http.HttpResponse;

/**
 * Checksum validation of warm GETs ({@code checksum.validateWarmGet}, docs/protection.md), as
 * {@link ObjectGetHandler} asks for it: a GET it applies to is served through {@link #serve} instead of sendfile.
 * The implementation lives in {@code io.granary.target.validation}.
 */
public interface WarmValidation {
  /** No validation: every GET is sent zero-copy, as without the setting. */
  WarmValidation OFF = new WarmValidation() {
    @Override
    public boolean applies(BucketProps bucket, ObjectMeta meta) {
      return false;
    }

    @Override
    public Served serve(HttpExchange ex, HttpResponse head, StoredObject obj, ByteRange range, BucketProps bucket,
        String name, Runnable again) {
      throw new IllegalStateException("validation is off");
    }
  };

  /** Whether a GET of {@code meta} is validated: the bucket asks for it and the record keeps a checksum. Cheap. */
  boolean applies(BucketProps bucket, ObjectMeta meta);

  /**
   * Serves a GET of {@code obj}, whose channel it owns from here. Event loop.
   *
   * @param head the response head, complete (status, length, range)
   * @param range the range asked for, null for the whole object
   * @param again serves the GET anew once a bad copy is repaired (null: this is the retry already, do not retry)
   * @return what to tell of the client connection while the answer streams, or null when nothing streams
   */
  Served serve(HttpExchange ex, HttpResponse head, StoredObject obj, ByteRange range, BucketProps bucket, String name,
      Runnable again);

  /** A validated answer being streamed: told of the client's connection. Event loop. */
  interface Served {
    void clientWritable();

    void clientClosed();
  }
}
