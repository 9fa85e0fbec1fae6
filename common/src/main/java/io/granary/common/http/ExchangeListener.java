package io.granary.common.http;

import io.netty.handler.codec.http.HttpMethod;

/**
 * Told by {@link HttpDispatcher} once per answered request, on the connection's event loop, when the answer has
 * been written (or its write failed). Requests that end without an answer (the client left first) are not
 * reported. Implementations must not block and should not allocate.
 */
@FunctionalInterface
public interface ExchangeListener {
  ExchangeListener NONE = (method, status, nanos, requestBytes, responseBytes) -> {};

  /**
   * @param status the status sent
   * @param nanos from the request head's arrival to the end of the answer's write
   * @param requestBytes body bytes received
   * @param responseBytes body bytes sent (for a file region or a stream: bytes handed to Netty)
   */
  void completed(HttpMethod method, int status, long nanos, long requestBytes, long responseBytes);

  /**
   * Told right after {@link #completed} when the answer was an error response built by
   * {@link HttpExchange#sendError}: {@code code} is the code its body carries (the S3 code for S3 requests, else
   * the native one). Error answers relayed verbatim from another node are not reported here.
   */
  default void error(String code) {}
}
