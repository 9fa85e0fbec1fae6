package io.granary.common.http;

/** Picks the handler for a request from its method and path. One router per node, shared by all connections. */
@FunctionalInterface
public interface Router {
  /**
   * @return a new handler for this request
   * @throws io.granary.common.error.ApiException when no endpoint matches or the request is rejected up front
   */
  RequestHandler route(HttpExchange exchange);
}
