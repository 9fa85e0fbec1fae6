package io.granary.backend;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A remote object store holding the buckets Granary caches. One instance per remote bucket configuration; it is
 * thread-safe and keeps its own connection pool. Every method blocks the calling thread (callers run it on a
 * bounded pool, never on an event loop); transient failures (503, 429, connection resets, timeouts before the
 * body starts) are retried inside with bounded exponential backoff, so a thrown {@link BackendException} is final.
 */
public interface Backend extends AutoCloseable {
  /** Attributes of {@code key}; {@link BackendException.Kind#NOT_FOUND} when it does not exist. */
  RemoteObject head(String bucket, String key) throws BackendException;

  /**
   * The checksum of the whole content of {@code key} that the remote keeps beyond {@link RemoteObject#md5()} and
   * {@link RemoteObject#crc32c()}, or null when it keeps none a reader can verify (none stored, a composite one of
   * a multipart upload, or a store that has no such thing). S3 answers it to a HEAD in checksum mode; GCS reports its
   * checksums with every object, so it has nothing to add here.
   *
   * @param expected the version being read: {@link BackendException.Kind#CHANGED} when the remote object is no
   *     longer it
   */
  default RemoteChecksum fullChecksum(String bucket, String key, RemoteObject expected) throws BackendException {
    return null;
  }

  /**
   * Opens {@code length} bytes of {@code key} from {@code offset} ({@code length < 0}: to the end) for streaming.
   * The returned channel reads into any {@link java.nio.ByteBuffer}, direct ones included, and never reports a
   * clean end of stream before the promised length: a short body throws {@link BackendException.Kind#TRUNCATED}.
   * The promise is {@link RemoteRead#length()}: less than asked when the range runs past the end, and the whole
   * object when a range from offset 0 meets a server that ignores Range.
   *
   * @param expected when not null, the read fails with {@link BackendException.Kind#CHANGED} if the remote object
   *     is no longer this version (S3: If-Match on the ETag; GCS: generation match), so ranged pieces of one
   *     object are never stitched from two versions
   */
  RemoteRead read(String bucket, String key, long offset, long length, RemoteObject expected)
      throws BackendException;

  /**
   * One page of the remote listing, in the remote's order (UTF-8 binary order for S3 and GCS).
   *
   * @param prefix only keys starting with it; empty for all
   * @param delimiter when not null, keys with it after the prefix are rolled up into common prefixes
   * @param startAfter when not null, only keys after it (ignored when {@code token} is given)
   * @param token the previous page's {@link RemotePage#nextToken()}, or null for the first page
   * @param maxKeys at most this many keys and prefixes (1..1000)
   */
  RemotePage list(String bucket, String prefix, String delimiter, String startAfter, String token, int maxKeys)
      throws BackendException;

  /**
   * Uploads the file as {@code key} (write-through); large files go up in parts or resumably. Returns the new
   * object's attributes (ETag/generation) as the remote reports them.
   */
  RemoteObject put(String bucket, String key, Path file, PutAttributes attributes) throws BackendException;

  /** Deletes {@code key}; deleting an absent key is not an error. */
  void delete(String bucket, String key) throws BackendException;

  /** Releases connections and threads. */
  @Override
  void close();
}
