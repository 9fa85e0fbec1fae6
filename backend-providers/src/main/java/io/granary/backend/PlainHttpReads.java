package io.granary.backend;

import java.util.List;
import java.util.Map;

/**
 * A {@link Backend} whose ranged object GETs a caller may send on its own non-blocking HTTP/1.1 client: the backend
 * signs the request and judges the answer's head, the caller moves the bytes. A target uses it to send a cold GET's
 * first read from the event loop that serves the client, so neither the request nor the answer's head waits for a
 * thread hand-over (see {@link Backend}: every other call blocks). Nothing here retries; a caller that meets a
 * transient failure falls back to {@link Backend#read}, which does.
 */
public interface PlainHttpReads {
  /** How much of a non-2xx answer's body {@link #failure} needs (an S3 error is a few hundred bytes of XML). */
  int ERROR_BODY_MAX = 8192;

  /**
   * The signed GET of {@code length} bytes of {@code key} from {@code offset} ({@code length < 0}: to the end), or
   * null when this backend's GETs cannot be sent over plain HTTP (an https endpoint) or without blocking (credentials
   * not resolved yet).
   */
  PlainHttpGet prepare(String bucket, String key, long offset, long length) throws BackendException;

  /**
   * What a 2xx answer to {@code get} promises, from its headers (names in any case).
   *
   * @throws BackendException when the head cannot be used (no length, a range ignored past offset 0)
   */
  Answer answer(PlainHttpGet get, Map<String, List<String>> headers) throws BackendException;

  /**
   * The failure a non-2xx answer to {@code get} means, from its status and the first {@link #ERROR_BODY_MAX} bytes
   * of its body (may be empty).
   */
  BackendException failure(PlainHttpGet get, int status, String bodyStart);

  /**
   * The object an answer describes, and the number of body bytes it promises (less than asked when the range runs
   * past the end; the whole object when a range from 0 met a server that ignores Range).
   */
  record Answer(RemoteObject object, long length) {}
}
