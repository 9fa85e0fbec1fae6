package io.granary.common.http;

import io.netty.handler.codec.http.HttpContent;

/**
 * Handles one HTTP request. A new instance serves each request; all callbacks run on the connection's event loop
 * and must not block. Work that blocks (fsync, RocksDB writes, remote calls) goes to an executor, which answers
 * through the {@link HttpExchange} (whose methods may be called from any thread).
 *
 * <p>Order: {@link #onRequest} once, then {@link #onContent} for each body chunk, then {@link #onEnd} once when
 * the body is complete, or {@link #onAbort} if the connection closes or the body is cut short first.
 */
public interface RequestHandler {

  /** The request head has arrived. Throwing an {@code ApiException} answers with that error. */
  void onRequest(HttpExchange exchange) throws Exception;

  /**
   * A chunk of the body. The dispatcher releases {@code chunk} after this returns; call {@code retain()} to keep
   * it longer. Not called once the exchange has been answered.
   */
  default void onContent(HttpExchange exchange, HttpContent chunk) throws Exception {
  }

  /** The body is complete (the last chunk was passed to {@link #onContent}). */
  default void onEnd(HttpExchange exchange) throws Exception {
  }

  /** The request will not complete: connection closed, body truncated, timed out or a handler callback threw. */
  default void onAbort(HttpExchange exchange, Throwable cause) {
  }

  /**
   * The client connection became writable or not while this exchange is in progress (its request or answer still
   * streaming): a handler relaying an answer pauses its source when false and resumes when true.
   */
  default void onClientWritabilityChanged(HttpExchange exchange, boolean writable) {
  }

  /** The client connection closed while the answer was still streaming (after the request was complete). */
  default void onClientClosed(HttpExchange exchange) {
  }
}
