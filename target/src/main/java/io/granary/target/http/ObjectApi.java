package io.granary.target.http;

import io.granary.clustermap.bucket.BucketProps;
import io.granary.common.error.ObjectNotFoundException;
import io.granary.common.http.ByteRange;
import io.granary.common.http.ErrorRenderer;
import io.granary.common.http.HttpExchange;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.storage.PutOptions;
import io.netty.handler.codec.http.HttpHeaders;

/**
 * What differs between the native API and the S3 API for the same object operation on a target: how a request
 * names its object, what a PUT carries, which headers describe an object, and how errors look. The handlers
 * ({@link ObjectGetHandler}, {@link ObjectPutHandler}, {@link ObjectDeleteHandler}) are shared.
 */
public interface ObjectApi {

  /** The bucket and object a request names; validates both (400/404). */
  ObjectRequest read(HttpExchange ex);

  /** Length, client checksums and stored attributes of a PUT; validates them (400). */
  PutOptions putOptions(HttpExchange ex);

  /** Headers that describe a stored object (ETag, Last-Modified, type, checksums or user metadata). */
  void describe(HttpHeaders headers, ObjectMeta meta);

  /** Headers of the answer to a PUT that committed {@code meta}: {@link #describe} unless the API adds more. */
  default void describeWrite(HttpHeaders headers, ObjectMeta meta) {
    describe(headers, meta);
  }

  /**
   * The bytes a GET or HEAD reads, or null for the whole object; throws for a range this API refuses. May add
   * headers to the response (S3's {@code x-amz-mp-parts-count} for a part read).
   */
  ByteRange range(HttpExchange ex, ObjectMeta meta, HttpHeaders response);

  /** Headers a GET or HEAD adds to {@link #describe}'s, from the request (S3's {@code response-*} overrides). */
  default void decorateRead(HttpExchange ex, HttpHeaders response, ObjectMeta meta) {
  }

  /**
   * Refuses (throws) a read the caller may not make of this object; the default lets every read through. Called
   * with the object's record before any answer about it.
   */
  default void authorizeRead(HttpExchange ex, ObjectMeta meta) {
  }

  /** What a read of a missing object answers: 404, unless the API hides from this caller whether it exists. */
  default RuntimeException notFound(HttpExchange ex, ObjectRequest req) {
    return new ObjectNotFoundException(req.bucket().bucket().toString(), req.name());
  }

  /** Whether deleting a missing object is an error (native: 404) or a success (S3: 204). */
  boolean missingDeleteIsError();

  ErrorRenderer errors();

  /** A named object in a known bucket. */
  record ObjectRequest(BucketProps bucket, String name) {
  }
}
