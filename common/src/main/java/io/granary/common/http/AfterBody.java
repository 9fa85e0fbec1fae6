package io.granary.common.http;

import io.netty.handler.codec.http.HttpContent;

/**
 * Serves a request that acts on its head alone (DELETE, CopyObject, CreateMultipartUpload, DeleteBucket...) only
 * once its body has arrived whole and passed {@code check}, and not at all otherwise. The body is dropped.
 *
 * <p>Why: a refused request must have changed nothing. A proxy verifies a client's body against the signed
 * {@code x-amz-content-sha256} only at its end, and withholds the last chunk from the target when it does not
 * match; a handler that acted on the head would by then have deleted the object the client is told was kept.
 * The same holds for a body cut short: its handler is never run.
 *
 * <p>Runs on the connection's event loop, like the handler it wraps; the wrapped handler sees {@code onRequest}
 * and {@code onEnd} together when the body is complete, as for a request without one.
 */
public final class AfterBody implements RequestHandler {
  /** Looks at each chunk of the body on its way to the bin; throws (an {@code ApiException}) to refuse it. */
  @FunctionalInterface
  public interface Check {
    Check NONE = chunk -> { };

    void accept(HttpContent chunk) throws Exception;
  }

  private final RequestHandler handler;
  private final Check check;
  private boolean started; // the body is complete and checked: handler runs

  private AfterBody(RequestHandler handler, Check check) {
    this.handler = handler;
    this.check = check;
  }

  /** {@code handler} itself when the request declares no body, else {@code handler} run once the body is whole. */
  public static RequestHandler of(HttpExchange exchange, RequestHandler handler) {
    return of(exchange, handler, Check.NONE);
  }

  /** As {@link #of(HttpExchange, RequestHandler)}, with every chunk of the body passed to {@code check} first. */
  public static RequestHandler of(HttpExchange exchange, RequestHandler handler, Check check) {
    return exchange.hasBody() ? new AfterBody(handler, check) : handler;
  }

  @Override
  public void onRequest(HttpExchange exchange) {
  }

  @Override
  public void onContent(HttpExchange exchange, HttpContent chunk) throws Exception {
    check.accept(chunk);
  }

  @Override
  public void onEnd(HttpExchange exchange) throws Exception {
    started = true;
    handler.onRequest(exchange);
    handler.onEnd(exchange);
  }

  @Override
  public void onAbort(HttpExchange exchange, Throwable cause) {
    if (started) {
      handler.onAbort(exchange, cause);
    }
  }

  @Override
  public void onClientWritabilityChanged(HttpExchange exchange, boolean writable) {
    if (started) {
      handler.onClientWritabilityChanged(exchange, writable);
    }
  }

  @Override
  public void onClientClosed(HttpExchange exchange) {
    if (started) {
      handler.onClientClosed(exchange);
    }
  }
}
